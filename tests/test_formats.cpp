// The CI report formats (--format junit|github|sarif), --output FILE, -q/--quiet, and remote
// use (no terminal, no colour, no prompt). JUnit reports are parsed with libxml2 and validated
// against tests/data/junit/junit.xsd; SARIF logs are checked field by field here and against the
// official SARIF 2.1.0 schema by tests/sarif/validate_sarif.py (ctest `sarif_schema`); GitHub
// workflow commands are parsed and unescaped as the runner does.
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "sm120check/ci_report.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_file;
using test::run_sm120check;
using test::RunResult;
using test::TempDir;
using test::write_file;

const std::string kSource = SM120CHECK_SOURCE_DIR;
const std::string kBin = SM120CHECK_BIN;
const std::string kDemoPatches = kSource + "/patches";
const std::string kDemoTree = kSource + "/examples/tree";
const std::string kExtend = "python/sglang/srt/layers/attention/triton_ops/extend_attention.py";
const std::string kMoe = "python/sglang/srt/layers/moe/fused_moe_config.py";

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// libxml2: parse, validate against the XSD, query with XPath.

/// A parsed XML document; `ok()` false when the text is not well-formed XML 1.0.
class XmlDoc {
 public:
  explicit XmlDoc(const std::string& text)
      : doc_(xmlReadMemory(text.data(), static_cast<int>(text.size()), "report.xml", nullptr,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)) {}
  ~XmlDoc() {
    if (doc_ != nullptr) xmlFreeDoc(doc_);
  }
  XmlDoc(const XmlDoc&) = delete;
  XmlDoc& operator=(const XmlDoc&) = delete;
  bool ok() const { return doc_ != nullptr; }

  /// Errors of validating against the XSD at `path`; "" when valid.
  std::string validate(const std::string& path) const {
    std::string errors;
    xmlSchemaParserCtxtPtr parser = xmlSchemaNewParserCtxt(path.c_str());
    xmlSchemaPtr schema = xmlSchemaParse(parser);
    xmlSchemaFreeParserCtxt(parser);
    if (schema == nullptr) return "cannot parse " + path;
    xmlSchemaValidCtxtPtr valid = xmlSchemaNewValidCtxt(schema);
    xmlSchemaSetValidStructuredErrors(
        valid,
        [](void* sink, xmlErrorPtr e) {
          *static_cast<std::string*>(sink) += std::to_string(e->line) + ": " + e->message;
        },
        &errors);
    const int rc = xmlSchemaValidateDoc(valid, doc_);
    xmlSchemaFreeValidCtxt(valid);
    xmlSchemaFree(schema);
    if (rc != 0 && errors.empty()) errors = "invalid (" + std::to_string(rc) + ")";
    return errors;
  }

  /// The XPath 1.0 expression's value as a string (string(), count(), ...).
  std::string eval(const std::string& expr) const {
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc_);
    xmlXPathObjectPtr obj = xmlXPathEvalExpression(BAD_CAST expr.c_str(), ctx);
    std::string out;
    if (obj != nullptr) {
      xmlChar* s = xmlXPathCastToString(obj);
      out = reinterpret_cast<const char*>(s);
      xmlFree(s);
      xmlXPathFreeObject(obj);
    }
    xmlXPathFreeContext(ctx);
    return out;
  }
  /// count(`expr`) as a number.
  int count(const std::string& expr) const { return std::stoi(eval("count(" + expr + ")")); }

 private:
  xmlDocPtr doc_;
};

const std::string kJunitXsd = kSource + "/tests/data/junit/junit.xsd";

/// Expects a well-formed JUnit report, valid against the XSD, whose counts agree with its
/// elements (on <testsuites> and on every <testsuite>).
void expect_valid_junit(const XmlDoc& doc) {
  ASSERT_TRUE(doc.ok()) << "not well-formed XML";
  EXPECT_EQ(doc.validate(kJunitXsd), "");
  EXPECT_EQ(doc.eval("string(/testsuites/@tests)"), std::to_string(doc.count("//testcase")));
  EXPECT_EQ(doc.eval("string(/testsuites/@failures)"),
            std::to_string(doc.count("//testcase/failure")));
  EXPECT_EQ(doc.eval("string(/testsuites/@errors)"), std::to_string(doc.count("//testcase/error")));
  EXPECT_EQ(doc.eval("string(/testsuites/@skipped)"),
            std::to_string(doc.count("//testcase/skipped")));
  const int suites = doc.count("/testsuites/testsuite");
  for (int i = 1; i <= suites; ++i) {
    const std::string s = "/testsuites/testsuite[" + std::to_string(i) + "]";
    EXPECT_EQ(doc.eval("string(" + s + "/@tests)"), std::to_string(doc.count(s + "/testcase")));
    EXPECT_EQ(doc.eval("string(" + s + "/@failures)"),
              std::to_string(doc.count(s + "/testcase/failure")));
    EXPECT_EQ(doc.eval("string(" + s + "/@errors)"),
              std::to_string(doc.count(s + "/testcase/error")));
    EXPECT_EQ(doc.eval("string(" + s + "/@skipped)"),
              std::to_string(doc.count(s + "/testcase/skipped")));
  }
}

// ---------------------------------------------------------------------------------------------
// GitHub workflow commands, read as the runner reads them.

/// One parsed workflow command.
struct Command {
  std::string level;                               ///< "error", "warning", ...
  std::map<std::string, std::string> properties;   ///< unescaped
  std::string message;                             ///< unescaped
};

/// The runner's unescaping of data ("%25" last, so "%2541" stays "%41").
std::string unescape_data(std::string s) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"%0D", "\r"}, {"%0A", "\n"}, {"%25", "%"}}) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
      s.replace(at, from.size(), to);
  }
  return s;
}

std::string unescape_property(std::string s) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"%3A", ":"}, {"%2C", ","}, {"%0D", "\r"}, {"%0A", "\n"}, {"%25", "%"}}) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
      s.replace(at, from.size(), to);
  }
  return s;
}

/// The workflow commands of `out` and its other lines (which the runner prints as they are).
struct GithubOutput {
  std::vector<Command> commands;
  std::vector<std::string> plain;
};

GithubOutput parse_github(const std::string& out) {
  GithubOutput parsed;
  static const std::regex kCommand(R"(^::([a-z-]+)( [^:]*)?::(.*)$)");
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t end = out.find('\n', start);
    const std::string line = out.substr(start, end - start);
    start = end == std::string::npos ? out.size() : end + 1;
    std::smatch m;
    if (!std::regex_match(line, m, kCommand)) {
      parsed.plain.push_back(line);
      continue;
    }
    Command c;
    c.level = m[1];
    std::string props = m[2].matched ? m[2].str().substr(1) : "";
    while (!props.empty()) {
      const std::size_t comma = props.find(',');
      const std::string kv = props.substr(0, comma);
      props = comma == std::string::npos ? "" : props.substr(comma + 1);
      const std::size_t eq = kv.find('=');
      c.properties[kv.substr(0, eq)] = unescape_property(kv.substr(eq + 1));
    }
    c.message = unescape_data(m[3]);
    parsed.commands.push_back(std::move(c));
  }
  return parsed;
}

/// A tree whose one file has a hostile name (a comma, a colon, a percent sign, a line break)
/// and a patch in conflict with it whose subject and lines carry markup, escapes and controls.
struct HostileCase {
  TempDir dir;
  std::string tree;
  std::string patch;
  static constexpr const char* kName = "we,ird:na%me\nx.py";
  HostileCase() : tree(dir / "tree"), patch(dir / "hostile.patch") {
    write_file(fs::path(tree) / kName, "one\ntwo\nthree\nfour\n");
    write_file(patch,
               "From 1 Mon Sep 17 00:00:00 2001\n"
               "Subject: [PATCH] <b>&amp;</b> \"q\" ]]> 50%0A::warning::injected, a:b\n"
               "\n"
               "---\n"
               "diff --git \"a/we,ird:na%me\\nx.py\" \"b/we,ird:na%me\\nx.py\"\n"
               "--- \"a/we,ird:na%me\\nx.py\"\n"
               "+++ \"b/we,ird:na%me\\nx.py\"\n"
               "@@ -1,3 +1,3 @@\n"
               " one\n"
               "-tw\x1b[31mo\x01\x7f\n"
               "+TWO <&> \xef\xbf\xbe\tend\n"
               " three\n");
  }
};

/// `verify --no-gpu --format FORMAT` of the demo's patches, run in `dir` on a copy of the demo
/// tree there named `tree` (a relative TARGET, as in a CI checkout).
RunResult verify_demo_copy(const TempDir& dir, const std::string& format) {
  fs::copy(kDemoTree, dir / "tree", fs::copy_options::recursive);
  return test::run_shell("'" + kBin + "' verify --no-gpu --format " + format + " '" +
                             kDemoPatches + "' tree",
                         dir.path());
}

// ---------------------------------------------------------------------------------------------
// Escaping functions.

TEST(FormatEscape, XmlEscapesMarkupAndReplacesIllegalCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"", false), "a&lt;b&gt;&amp;\"c\"");
  EXPECT_EQ(xml_escape("a<b>&\"c\"", true), "a&lt;b&gt;&amp;&quot;c&quot;");
  EXPECT_EQ(xml_escape("t\tn\nr\r", false), "t\tn\nr&#13;");
  EXPECT_EQ(xml_escape("t\tn\nr\r", true), "t&#9;n&#10;r&#13;");
  EXPECT_EQ(xml_escape(std::string("\x1b\x01\x00z", 4), false), "\\x1b\\x01\\x00z");
  EXPECT_EQ(xml_escape("\xef\xbf\xbe\xef\xbf\xbf", false), "\\uFFFE\\uFFFF");
  EXPECT_EQ(xml_escape("\xff", false), "\xef\xbf\xbd");  // ill-formed UTF-8: U+FFFD
  EXPECT_EQ(xml_escape("]]>", false), "]]&gt;");
  EXPECT_EQ(xml_escape("\xc3\xa9\xe2\x80\xae", false), "\xc3\xa9\xe2\x80\xae");  // kept as is
  // Whatever the bytes, the result parses as the text of an element.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  XmlDoc doc("<a x=\"" + xml_escape(all, true) + "\">" + xml_escape(all, false) + "</a>");
  EXPECT_TRUE(doc.ok());
}

TEST(FormatEscape, GithubDataAndProperties) {
  EXPECT_EQ(github_escape_data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
  EXPECT_EQ(github_escape_property("50% a:b,c\r\nd"), "50%25 a%3Ab%2Cc%0D%0Ad");
  EXPECT_EQ(github_escape_property("\x1b[1m\x7f"), "%1B[1m%7F");
  EXPECT_EQ(unescape_property(github_escape_property("we,ird:na%me\nx.py")), "we,ird:na%me\nx.py");
  EXPECT_EQ(unescape_data(github_escape_data("%0A literal\n")), "%0A literal\n");
}

TEST(FormatEscape, MarkdownAndUri) {
  EXPECT_EQ(markdown_escape("a|b*c_d`e<f>[g](h) #1 $x$ ~s~ &amp; !x\\"),
            "a\\|b\\*c\\_d\\`e\\<f\\>\\[g\\](h) \\#1 \\$x\\$ \\~s\\~ \\&amp; \\!x\\\\");
  EXPECT_EQ(markdown_escape("two\nlines\r"), "two lines ");
  EXPECT_EQ(uri_escape_path("dir/we,ird:na%me\nx y.py"), "dir/we%2Cird%3Ana%25me%0Ax%20y.py");
  EXPECT_EQ(uri_escape_path("caf\xc3\xa9~-_./"), "caf%C3%A9~-_./");
}

TEST(FormatEscape, ReportPathPrefix) {
  EXPECT_EQ(report_path_prefix(".", "/w"), "");
  EXPECT_EQ(report_path_prefix("./", "/w"), "");
  EXPECT_EQ(report_path_prefix("tree", "/w"), "tree/");
  EXPECT_EQ(report_path_prefix("./a//b/", "/w"), "a/b/");
  EXPECT_EQ(report_path_prefix("../x", "/w"), "../x/");
  EXPECT_EQ(report_path_prefix("/w/a/b", "/w"), "a/b/");
  EXPECT_EQ(report_path_prefix("/w", "/w"), "");
  EXPECT_EQ(report_path_prefix("/w/", "/w/"), "");
  EXPECT_EQ(report_path_prefix("/srv/venv", "/w"), "/srv/venv/");
  EXPECT_EQ(report_path_prefix("/wx/a", "/w"), "/wx/a/");  // a sibling, not inside
  EXPECT_EQ(report_path_prefix("/", "/w"), "/");
}

// ---------------------------------------------------------------------------------------------
// --format junit

TEST(FormatJunit, TheSchemaRejectsWhatReadersNeed) {
  // The XSD is a real check: missing required attributes and stray elements fail it.
  XmlDoc valid("<testsuites name='n' tests='1' failures='0' errors='0' time='0'><testsuite "
               "name='s' tests='1' failures='0' errors='0' time='0'><testcase name='c' "
               "classname='s' time='0'/></testsuite></testsuites>");
  EXPECT_EQ(valid.validate(kJunitXsd), "");
  XmlDoc no_classname("<testsuites name='n' tests='1' failures='0' errors='0' time='0'><testsuite "
                      "name='s' tests='1' failures='0' errors='0' time='0'><testcase name='c' "
                      "time='0'/></testsuite></testsuites>");
  EXPECT_NE(no_classname.validate(kJunitXsd), "");
  XmlDoc no_type("<testsuites name='n' tests='1' failures='1' errors='0' time='0'><testsuite "
                 "name='s' tests='1' failures='1' errors='0' time='0'><testcase name='c' "
                 "classname='s' time='0'><failure message='m'>x</failure></testcase></testsuite>"
                 "</testsuites>");
  EXPECT_NE(no_type.validate(kJunitXsd), "");
  XmlDoc bad_count("<testsuites name='n' tests='-1' failures='0' errors='0' time='0'/>");
  EXPECT_NE(bad_count.validate(kJunitXsd), "");
}

TEST(FormatJunit, DemoIsValidWithAFailurePerPatchNotApplied) {
  const RunResult r = run_sm120check(
      {"verify", "--no-gpu", "--format", "junit", kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0), 0u);
  XmlDoc doc(r.out);
  expect_valid_junit(doc);
  EXPECT_EQ(doc.count("/testsuites/testsuite"), 3);
  EXPECT_EQ(doc.eval("string(/testsuites/@tests)"), "3");
  EXPECT_EQ(doc.eval("string(/testsuites/@failures)"), "2");
  EXPECT_EQ(doc.eval("string(/testsuites/@errors)"), "0");
  const std::string s1 = "/testsuites/testsuite[1]";
  EXPECT_EQ(doc.eval("string(" + s1 + "/@name)"),
            "patch 1/3: " + kDemoPatches +
                "/0001-extend_attention-smaller-Triton-tiles-on-SM120.patch: extend_attention: "
                "smaller Triton tiles on SM120");
  EXPECT_EQ(doc.eval("string(" + s1 + "/properties/property[@name='status']/@value)"),
            "applicable");
  EXPECT_EQ(doc.eval("string(" + s1 + "/testcase/@name)"), kExtend);
  EXPECT_EQ(doc.eval("string(" + s1 + "/testcase/failure/@type)"), "applicable");
  EXPECT_EQ(doc.eval("string(" + s1 + "/testcase/failure/@message)"),
            "applicable (fix absent); hunk 1: applicable at line 15 (offset +3)");
  const std::string failure = doc.eval("string(" + s1 + "/testcase/failure)");
  // TARGET as the working directory reaches it (relative when inside it).
  const std::string prefix = report_path_prefix(kDemoTree, fs::current_path().string());
  EXPECT_TRUE(contains(failure, "file: " + prefix + kExtend + "\n")) << failure;
  EXPECT_TRUE(contains(failure, "hunk 1 @@ -12,7 +12,15 @@  applicable at line 15 (offset +3)\n"));
  // The hunk's lines, as the patch has them.
  EXPECT_TRUE(contains(failure, "    -    if CUDA_CAPABILITY[0] >= 9:\n")) << failure;
  EXPECT_TRUE(contains(failure, "    +    if CUDA_CAPABILITY[0] == 12:\n")) << failure;
  EXPECT_TRUE(contains(doc.eval("string(" + s1 + "/system-out)"), "  strip level: 1 (detected)\n"));
  // Applied: a test case without failure.
  EXPECT_EQ(doc.count("/testsuites/testsuite[2]/testcase/*"), 0);
  // Conflict: the near miss.
  const std::string conflict = doc.eval("string(/testsuites/testsuite[3]/testcase/failure)");
  EXPECT_EQ(doc.eval("string(/testsuites/testsuite[3]/testcase/failure/@type)"), "conflict");
  EXPECT_TRUE(contains(conflict, "conflict (nearest: pre-image at line 15, 3 of 4 lines agree; "
                                 "line 16 differs)"))
      << conflict;
  EXPECT_TRUE(contains(conflict, "file: " + prefix + kMoe + "\n"));
}

TEST(FormatJunit, HostileNamesAndControlCharactersStayWellFormed) {
  HostileCase c;
  const RunResult r =
      run_sm120check({"verify", "--no-gpu", "--format", "junit", c.patch, c.tree});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  XmlDoc doc(r.out);
  expect_valid_junit(doc);
  // Names read back as the terminal-escaped text: no raw line break or control character.
  EXPECT_EQ(doc.eval("string(//testcase/@name)"), "we,ird:na%me\\x0ax.py");
  EXPECT_TRUE(contains(doc.eval("string(//testsuite/@name)"),
                       "<b>&amp;</b> \"q\" ]]> 50%0A::warning::injected, a:b"));
  const std::string failure = doc.eval("string(//testcase/failure)");
  EXPECT_TRUE(contains(failure, "    -tw\\x1b[31mo\\x01\\x7f\n")) << failure;
  // A tab is kept; U+FFFE, which XML 1.0 forbids, is written as text.
  EXPECT_TRUE(contains(failure, "    +TWO <&> \\uFFFE\tend\n")) << failure;
  EXPECT_FALSE(contains(r.out, "\x1b"));
  EXPECT_FALSE(contains(r.out, "\x01"));
}

TEST(FormatJunit, UnreadablePatchIsAnErrorAndSkippedPatchesAreSkipped) {
  TempDir dir;
  write_file(dir / "bad.patch", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n");
  RunResult r = run_sm120check(
      {"verify", "--no-gpu", "--format", "junit", dir / "bad.patch", kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 3);
  XmlDoc bad(r.out);
  expect_valid_junit(bad);
  EXPECT_EQ(bad.count("//testcase/error"), 1);
  EXPECT_EQ(bad.eval("string(//testcase/error/@type)"), "error");
  EXPECT_TRUE(contains(bad.eval("string(//testcase/error)"), dir / "bad.patch" + ":"));

  // A GPU the demo's SM120 patches are not for: with --only-relevant they are skipped.
  r = run_sm120check({"verify", "--cc", "9.0", "--only-relevant", "--format", "junit",
                      kDemoPatches, kDemoTree});
  XmlDoc skipped(r.out);
  expect_valid_junit(skipped);
  EXPECT_EQ(skipped.count("//testcase/skipped"), 3);
  EXPECT_EQ(skipped.eval("string(//testcase/skipped/@message)"),
            "targets other architectures than this GPU's (--only-relevant)");
  EXPECT_EQ(r.exit_code, 0);
}

// ---------------------------------------------------------------------------------------------
// --format github

TEST(FormatGithub, DemoAnnotatesTheTargetFilesAtTheirLines) {
  TempDir dir;
  const RunResult r = verify_demo_copy(dir, "github");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const GithubOutput g = parse_github(r.out);
  ASSERT_EQ(g.commands.size(), 2u) << r.out;
  EXPECT_EQ(g.plain,
            std::vector<std::string>{"summary: 3 patches: 1 applied, 1 applicable, 1 conflict  -> exit 2"});
  const Command& applicable = g.commands[0];
  EXPECT_EQ(applicable.level, "error");
  EXPECT_EQ(applicable.properties.at("file"), "tree/" + kExtend);  // relative to the cwd
  EXPECT_EQ(applicable.properties.at("line"), "15");
  EXPECT_EQ(applicable.properties.at("title"),
            "sm120check verify: applicable: extend_attention: smaller Triton tiles on SM120");
  EXPECT_TRUE(contains(applicable.message,
                       "\n" + kExtend + ": applicable (fix absent)\nhunk 1 @@ -12,7 +12,15 @@  "
                                        "applicable at line 15 (offset +3)"))
      << applicable.message;
  const Command& conflict = g.commands[1];
  EXPECT_EQ(conflict.properties.at("file"), "tree/" + kMoe);
  EXPECT_EQ(conflict.properties.at("line"), "15");  // the near miss
  EXPECT_TRUE(contains(conflict.message, "nearest: pre-image at line 15"));
}

TEST(FormatGithub, HostileNamesCannotInjectCommands) {
  HostileCase c;
  const RunResult r = test::run_shell(
      "'" + kBin + "' verify --no-gpu --format github hostile.patch tree", c.dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const GithubOutput g = parse_github(r.out);
  ASSERT_EQ(g.commands.size(), 1u) << r.out;  // the subject's "::warning::" started nothing
  ASSERT_EQ(g.plain.size(), 1u) << r.out;
  EXPECT_EQ(g.plain[0].rfind("summary: ", 0), 0u);
  const Command& e = g.commands[0];
  EXPECT_EQ(e.level, "error");
  EXPECT_EQ(e.properties.size(), 3u);
  EXPECT_EQ(e.properties.at("file"), std::string("tree/") + HostileCase::kName);  // exact path
  EXPECT_EQ(e.properties.at("line"), "1");  // the near miss
  EXPECT_EQ(e.properties.at("title"),
            "sm120check verify: conflict: <b>&amp;</b> \"q\" ]]> 50%0A::warning::injected, a:b");
  EXPECT_TRUE(contains(e.message, "we,ird:na%me\\x0ax.py: conflict")) << e.message;
  EXPECT_FALSE(contains(r.out, "\x1b"));
}

TEST(FormatGithub, AppendsAMarkdownJobSummary) {
  TempDir dir;
  write_file(dir / "summary.md", "earlier step\n");
  RunResult r = run_sm120check({"verify", "--no-gpu", "--format", "github", kDemoPatches, kDemoTree},
                               {}, {"GITHUB_STEP_SUMMARY=" + dir / "summary.md"});
  EXPECT_EQ(r.exit_code, 2);
  const std::string md = read_file(dir / "summary.md");
  EXPECT_EQ(md.rfind("earlier step\n### sm120check verify: ", 0), 0u) << md;
  EXPECT_TRUE(contains(md, "| # | patch | status | fix | files not applied |\n"));
  EXPECT_TRUE(contains(md, "| 2 | " + markdown_escape(kDemoPatches) +
                               "/0002-decode\\_attention-one-pipeline-stage-on-SM120.patch: "
                               "decode\\_attention: one pipeline stage on SM120 | applied | "
                               "present | 0 of 1 |\n"))
      << md;
  EXPECT_TRUE(contains(md, "  - hunk 1 @@ -12,7 +12,15 @@  applicable at line 15 (offset +3)\n"));
  EXPECT_TRUE(contains(md, "\nsummary: 3 patches: 1 applied, 1 applicable, 1 conflict  -\\> exit 2\n"));

  // Not a file that can be written: a warning, the same exit code.
  r = run_sm120check({"verify", "--no-gpu", "--format", "github", kDemoPatches, kDemoTree}, {},
                     {"GITHUB_STEP_SUMMARY=" + dir / "missing/summary.md"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "sm120check: warning: cannot append the job summary")) << r.err;
}

// ---------------------------------------------------------------------------------------------
// --format sarif (the schema itself: tests/sarif/validate_sarif.py)

TEST(FormatSarif, DemoHasRulesResultsAndLocations) {
  TempDir dir;
  const RunResult r = verify_demo_copy(dir, "sarif");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const json log = json::parse(r.out);
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_TRUE(contains(log["$schema"].get<std::string>(), "sarif-schema-2.1.0.json"));
  ASSERT_EQ(log["runs"].size(), 1u);
  const json& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "sm120check");
  std::vector<std::string> rules;
  for (const json& rule : run["tool"]["driver"]["rules"]) rules.push_back(rule["id"]);
  EXPECT_EQ(rules, (std::vector<std::string>{"verify/applicable", "verify/partial",
                                             "verify/conflict", "verify/unknown",
                                             "verify/error"}));
  ASSERT_EQ(run["results"].size(), 2u);
  for (const json& result : run["results"])
    EXPECT_EQ(result["ruleId"], rules.at(result["ruleIndex"].get<std::size_t>()));
  const json& first = run["results"][0];
  EXPECT_EQ(first["ruleId"], "verify/applicable");
  EXPECT_EQ(first["level"], "error");
  const json& where = first["locations"][0]["physicalLocation"];
  EXPECT_EQ(where["artifactLocation"]["uri"], "tree/" + kExtend);
  EXPECT_EQ(where["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  EXPECT_EQ(where["region"]["startLine"], 15);
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file://" + uri_escape_path(fs::canonical(dir.path()).string()) + "/");
  EXPECT_EQ(run["results"][1]["ruleId"], "verify/conflict");
  EXPECT_EQ(run["invocations"][0]["exitCode"], 2);
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
}

TEST(FormatSarif, HostileNameIsAPercentEncodedUri) {
  HostileCase c;
  const RunResult r = run_sm120check({"verify", "--no-gpu", "--format", "sarif", c.patch, c.tree});
  const json log = json::parse(r.out);
  const json& result = log["runs"][0]["results"][0];
  // An absolute TARGET outside the working directory: a file: URI.
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file://" + uri_escape_path(c.tree) + "/we%2Cird%3Ana%25me%0Ax.py");
  EXPECT_FALSE(result["locations"][0]["physicalLocation"]["artifactLocation"].contains("uriBaseId"));
  EXPECT_TRUE(contains(result["message"]["text"].get<std::string>(),
                       "we,ird:na%me\\x0ax.py: conflict (fix absent)"));
}

// ---------------------------------------------------------------------------------------------
// --output FILE and -q/--quiet

TEST(FormatOutput, WritesTheReportAtomicallyAndASummaryLine) {
  TempDir dir;
  const RunResult direct =
      run_sm120check({"verify", "--no-gpu", "--format", "json", kDemoPatches, kDemoTree});
  const std::string file = dir / "reports/verify.json";
  fs::create_directories(dir / "reports");
  const RunResult r = run_sm120check(
      {"verify", "--no-gpu", "--format", "json", "--output", file, kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, direct.exit_code);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "summary: 3 patches: 1 applied, 1 applicable, 1 conflict  -> exit 2 (json "
                   "report: " + file + ")\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(read_file(file), direct.out);
  // Nothing else is left in the folder (no temporary file), and the mode is a new file's.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "reports")) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"verify.json"});
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(FormatOutput, ReplacesAnExistingReportKeepingItsMode) {
  TempDir dir;
  const std::string file = dir / "report.xml";
  write_file(file, "old\n");
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  const RunResult r = run_sm120check(
      {"verify", "--no-gpu", "--format", "junit", "--output", file, kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 2);
  XmlDoc doc(read_file(file));
  expect_valid_junit(doc);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(FormatOutput, AFifoOrASymlinkToOneIsWrittenInPlaceNotReplaced) {
  // /dev/null, /dev/stdout or a FIFO a reader waits on: renaming a temporary file over them
  // replaced the node with a regular file (as root, /dev/full itself) and left the reader
  // waiting. A FIFO (no root needed) and a symlink to it stand for them here.
  TempDir dir;
  const std::string fifo = dir / "report.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(fifo, dir / "link");
  const std::string link = dir / "link";
  for (const std::string& target : {fifo, link}) {
    const std::string got = dir / "got.json";
    const std::string cmd = "timeout 10 cat '" + fifo + "' > '" + got + "' & reader=$!; '" +
                            std::string(SM120CHECK_BIN) +
                            "' verify --no-gpu --format json --output '" + target + "' '" +
                            kDemoPatches + "' '" + kDemoTree + "' >/dev/null; rc=$?; wait $reader; "
                            "exit $rc";
    const RunResult r = test::run_shell(cmd);
    EXPECT_EQ(r.exit_code, 2) << target << ": " << r.err;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << target << " was replaced";
    EXPECT_TRUE(contains(read_file(got), "\"schema\": \"sm120check.verify/")) << target;
  }
  ASSERT_TRUE(fs::is_symlink(dir / "link"));
}

TEST(FormatOutput, AFailedRunLeavesTheFileAsItWas) {
  TempDir dir;
  const std::string file = dir / "report.json";
  write_file(file, "old\n");
  const RunResult r = run_sm120check(
      {"verify", "--format", "json", "--output", file, kDemoPatches, dir / "no-such-tree"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "sm120check: error: ")) << r.err;
  EXPECT_EQ(read_file(file), "old\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary file left
}

TEST(FormatOutput, UnwritableDestinationsAreErrors) {
  TempDir dir;
  RunResult r = run_sm120check(
      {"verify", "--no-gpu", "--output", dir.path().string(), kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "sm120check: error: --output '" + dir.path().string() + "' is a directory\n");
  r = run_sm120check(
      {"verify", "--no-gpu", "--output", dir / "no/such/dir/r.txt", kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "sm120check: error: cannot write '" + dir / "no/such/dir/r.txt" +
                       "': folder '" + dir / "no/such/dir" + "' does not exist (create it first)\n");
}

TEST(FormatOutput, QuietPrintsOnlyErrors) {
  TempDir dir;
  RunResult r = run_sm120check({"verify", "--no-gpu", "-q", kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  r = run_sm120check({"verify", "--no-gpu", "--quiet", "--format", "sarif", "--output",
                      dir / "r.sarif", kDemoPatches, kDemoTree});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(json::parse(read_file(dir / "r.sarif"))["runs"][0]["results"].size(), 2u);
  // Errors still show.
  write_file(dir / "bad.patch", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n");
  r = run_sm120check({"verify", "--no-gpu", "-q", dir / "bad.patch", kDemoTree});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "sm120check: error: " + dir / "bad.patch")) << r.err;
}

TEST(FormatOutput, OtherCommandsTakeOutputAndQuiet) {
  TempDir dir;
  RunResult r = run_sm120check(
      {"show", "--format", "json", "--output", dir / "show.json", kDemoPatches});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "show: 3 patches, 3 file patches (json report: " + dir / "show.json" + ")\n");
  EXPECT_EQ(json::parse(read_file(dir / "show.json"))["schema"], "sm120check.show/1");

  r = run_sm120check({"gpu", "--cc", "12.0", "--output", dir / "gpu.txt"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "gpu: 1 device  -> exit 0 (text report: " + dir / "gpu.txt" + ")\n");
  EXPECT_FALSE(contains(read_file(dir / "gpu.txt"), "\x1b"));

  r = run_sm120check({"grep", "-q", kDemoTree, "CUDA_CAPABILITY", "no such text anywhere"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");  // "not found" is a note, not an error

  r = run_sm120check({"scan", "--no-gpu", "--format", "json", "--output", dir / "scan.json",
                      kDemoTree});
  EXPECT_EQ(json::parse(read_file(dir / "scan.json"))["schema"], "sm120check.scan/1");
  EXPECT_TRUE(contains(r.out, "summary: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "(json report: " + dir / "scan.json" + ")\n"));

  // The CI formats are verify's and scan's: others refuse them as usage errors.
  r = run_sm120check({"show", "--format", "junit", kDemoPatches});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "must be text or json, not 'junit'")) << r.err;
  r = run_sm120check({"scan", "--list", "--format", "sarif"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "scan --list: --format sarif reports a scan")) << r.err;
}

// ---------------------------------------------------------------------------------------------
// Remote use: `ssh host sm120check verify --format json - TARGET < fix.patch`: standard input
// a pipe, standard output a pipe, no terminal, a TERM that would take colour.

TEST(FormatRemote, PatchOnAPipeReportOnAPipeNoColourNoPrompt) {
  const std::string patch = read_file(
      kDemoPatches + "/0001-extend_attention-smaller-Triton-tiles-on-SM120.patch");
  const std::vector<std::string> env = {"NO_COLOR=", "TERM=xterm-256color", "CLICOLOR_FORCE="};
  RunResult r = test::run_sm120check_within(
      30, {"verify", "--no-gpu", "--format", "json", "-", kDemoTree}, patch);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(json::parse(r.out)["patches"][0]["status"], "applicable");
  EXPECT_EQ(r.err, "");
  r = run_sm120check({"verify", "--no-gpu", "-", kDemoTree}, patch, env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(contains(r.out, "\x1b")) << r.out;  // a pipe: no colour, whatever TERM says
  EXPECT_TRUE(contains(r.out, "[applicable]"));
}

TEST(FormatRemote, ColourOnlyOnATerminal) {
  if (test::run_shell("command -v script >/dev/null").exit_code != 0)
    GTEST_SKIP() << "script(1) (util-linux) is not installed: no terminal to test on";
  // script(1) gives the command a pseudo-terminal for standard output.
  const std::string cmd = "'" + kBin + "' verify --no-gpu '" + kDemoPatches + "' '" + kDemoTree + "'";
  RunResult r = test::run_shell("env -u NO_COLOR -u CLICOLOR_FORCE TERM=xterm script -qec \"" +
                                cmd + "\" /dev/null </dev/null");
  EXPECT_TRUE(contains(r.out, "\x1b[")) << r.out;
  r = test::run_shell("env NO_COLOR=1 TERM=xterm script -qec \"" + cmd + "\" /dev/null </dev/null");
  EXPECT_FALSE(contains(r.out, "\x1b[")) << r.out;
  // On a terminal too, machine formats and --output files carry no colour.
  r = test::run_shell("env -u NO_COLOR TERM=xterm script -qec \"" + cmd +
                      " --format github\" /dev/null </dev/null");
  EXPECT_FALSE(contains(r.out, "\x1b[")) << r.out;
}

// ---------------------------------------------------------------------------------------------
// scan in the CI formats

/// A venv whose flashinfer-python lacks fix 2574 (its old code stands in gemm_base.py line 3).
std::string missing_fix_venv(const TempDir& dir) {
  const fs::path site = dir.path() / "venv/lib/python3.11/site-packages";
  write_file(site / "flashinfer_python-0.2.0.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: flashinfer-python\nVersion: 0.2.0\n");
  write_file(site / "flashinfer/__init__.py", "");
  write_file(site / "flashinfer/utils.py", "# synthetic\ndef is_sm120a_supported(device):\n");
  write_file(site / "flashinfer/gemm/gemm_base.py",
             "# synthetic\n\n    if is_sm120a_supported(a.device) or "
             "is_sm121a_supported(a.device):\n");
  return (dir.path() / "venv").string();
}

TEST(FormatScan, MissingFixInEveryCiFormat) {
  TempDir dir;
  const std::string venv = missing_fix_venv(dir);
  const std::vector<std::string> args = {"scan", "--cc", "12.0", "--no-kernels", "--only",
                                         "flashinfer-2574-is-sm12x-supported"};
  const std::string gemm = venv + "/lib/python3.11/site-packages/flashinfer/gemm/gemm_base.py";

  std::vector<std::string> a = args;
  a.insert(a.end(), {"--format", "junit", venv});
  RunResult r = run_sm120check(a);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  XmlDoc doc(r.out);
  expect_valid_junit(doc);
  EXPECT_EQ(doc.eval("string(//testcase[failure]/@name)").rfind("flashinfer-2574-is-sm12x-supported: ", 0), 0u);
  EXPECT_EQ(doc.eval("string(//testcase/failure/@type)"), "missing");
  EXPECT_EQ(doc.eval("string(/testsuites/testsuite[@name='walk']/testcase/@name)"), "walk complete");
  EXPECT_EQ(doc.count("/testsuites/testsuite[@name='walk']/testcase/failure"), 0);

  a = args;
  a.insert(a.end(), {"--format", "github", venv});
  r = run_sm120check(a);
  EXPECT_EQ(r.exit_code, 1);
  const GithubOutput g = parse_github(r.out);
  ASSERT_EQ(g.commands.size(), 1u) << r.out;
  EXPECT_EQ(g.commands[0].level, "error");
  EXPECT_EQ(g.commands[0].properties.at("file"), gemm);
  EXPECT_EQ(g.commands[0].properties.at("line"), "3");
  EXPECT_EQ(g.commands[0].properties.at("title"),
            "sm120check scan: missing: flashinfer-2574-is-sm12x-supported");

  a = args;
  a.insert(a.end(), {"--format", "sarif", venv});
  r = run_sm120check(a);
  const json log = json::parse(r.out);
  const json& result = log["runs"][0]["results"][0];
  EXPECT_EQ(result["ruleId"], "scan/missing");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file://" + uri_escape_path(gemm));
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_EQ(log["runs"][0]["invocations"][0]["exitCode"], 1);
}

TEST(FormatScan, IncompleteWalkIsAFailureAndAWarning) {
  TempDir dir;
  const std::string venv = missing_fix_venv(dir);
  RunResult r = run_sm120check({"scan", "--no-gpu", "--no-kernels", "--max-depth", "1",
                                "--format", "junit", venv});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  XmlDoc doc(r.out);
  expect_valid_junit(doc);
  EXPECT_EQ(doc.eval("string(/testsuites/testsuite[@name='walk']/testcase/failure/@type)"),
            "incomplete-walk");
  r = run_sm120check({"scan", "--no-gpu", "--no-kernels", "--max-depth", "1", "--format",
                      "github", venv});
  const GithubOutput g = parse_github(r.out);
  ASSERT_EQ(g.commands.size(), 1u) << r.out;
  EXPECT_EQ(g.commands[0].level, "warning");
  EXPECT_EQ(g.commands[0].properties.count("file"), 0u);
}

TEST(FormatRev, CiFormatsAreRefusedWithRevisions) {
  TempDir dir;
  fs::copy(kDemoTree, dir / "repo", fs::copy_options::recursive);
  ASSERT_TRUE(test::git_init_commit(dir / "repo"));
  const RunResult r = run_sm120check(
      {"verify", "--rev", "HEAD", "--format", "junit", kDemoPatches, dir / "repo"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "sm120check: error: --format junit reports one tree, not --rev revisions: use "
                   "--format json, or one run per revision\n");
}

}  // namespace
}  // namespace sm120check
