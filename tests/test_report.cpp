// Tests of the text and JSON rendering (src/report): suites Report*.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sm120check/report.hpp"

namespace sm120check {
namespace {

using nlohmann::json;

HunkReport make_hunk(std::size_t index, std::uint32_t old_start, std::uint32_t old_lines,
                     std::uint32_t new_start, std::uint32_t new_lines, HunkStatus status,
                     std::size_t line, std::int64_t offset, unsigned fuzz = 0,
                     bool both_images = false, std::string diagnostic = {}) {
  HunkReport h;
  h.index = index;
  h.old_start = old_start;
  h.old_lines = old_lines;
  h.new_start = new_start;
  h.new_lines = new_lines;
  h.match.status = status;
  h.match.line = line;
  h.match.offset = offset;
  h.match.fuzz = fuzz;
  h.match.both_images = both_images;
  h.match.diagnostic = std::move(diagnostic);
  // As the matcher sets them for an exact or fuzz match, or a conflict whose change is absent.
  const bool found = status == HunkStatus::kApplied || status == HunkStatus::kApplicable;
  h.match.kind = !found ? MatchKind::kNone : fuzz == 0 ? MatchKind::kExact : MatchKind::kFuzz;
  h.match.presence = status == HunkStatus::kApplied ? Presence::kPresent : Presence::kAbsent;
  if (!found) h.match.presence_reason = "not-found";
  return h;
}

/// Two patches: the first partly applied (applicable overall would be "partial"), the second a
/// conflict; one rename and one added file. Exit code 2.
VerifyReport sample_report() {
  VerifyReport report;
  report.target = "/srv/site-packages";

  PatchReport p1;
  p1.source = "0001-fix.patch";
  p1.subject = "Fix SM120 tile sizes";
  p1.patch_line = 1;
  p1.status = Status::kPartial;
  p1.presence = Presence::kPartial;
  p1.strip = 1;
  p1.strip_detected = true;
  FileReport f1;
  f1.old_path = "a/python/pkg/attn.py";
  f1.new_path = "b/python/pkg/attn.py";
  f1.target_path = "python/pkg/attn.py";
  f1.change = ChangeKind::kModify;
  f1.status = Status::kPartial;
  f1.presence = Presence::kPartial;
  f1.hunks.push_back(make_hunk(1, 10, 7, 10, 9, HunkStatus::kApplicable, 17, 7));
  f1.hunks.push_back(make_hunk(2, 40, 6, 42, 8, HunkStatus::kApplied, 49, 7, 1));
  f1.hunks.push_back(make_hunk(3, 80, 3, 84, 3, HunkStatus::kApplied, 84, 0, 0, true));
  p1.files.push_back(f1);
  FileReport f2;
  f2.old_path = "/dev/null";
  f2.new_path = "b/docs/new.md";
  f2.target_path = "docs/new.md";
  f2.change = ChangeKind::kAdd;
  f2.status = Status::kApplied;
  f2.presence = Presence::kPresent;
  p1.files.push_back(f2);
  report.patches.push_back(p1);

  PatchReport p2;
  p2.source = "series.mbox";
  p2.subject = "Rename kernel";
  p2.patch_line = 57;
  p2.status = Status::kConflict;
  p2.presence = Presence::kAbsent;
  p2.strip = 1;
  p2.strip_detected = false;
  FileReport f3;
  f3.old_path = "a/kern/old.cu";
  f3.new_path = "b/kern/new.cu";
  f3.target_path = "kern/old.cu";
  f3.change = ChangeKind::kRename;
  f3.status = Status::kConflict;
  f3.presence = Presence::kAbsent;
  f3.reason = "renamed file content differs";
  f3.hunks.push_back(
      make_hunk(1, 5, 4, 5, 5, HunkStatus::kConflict, 0, 0, 0, false, "line-ending-mismatch"));
  p2.files.push_back(f3);
  report.patches.push_back(p2);
  return report;
}

std::string verify_text(const VerifyReport& report, bool color) {
  std::ostringstream out;
  render_verify_text(out, report, color);
  return out.str();
}

std::string show_text(const std::vector<Patch>& patches, bool color) {
  std::ostringstream out;
  render_show_text(out, patches, color);
  return out.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

Hunk make_show_hunk(std::uint32_t old_start, std::uint32_t old_lines, std::uint32_t new_start,
                    std::uint32_t new_lines, std::string section,
                    std::vector<std::pair<LineKind, std::string>> body) {
  Hunk h;
  h.old_start = old_start;
  h.old_lines = old_lines;
  h.new_start = new_start;
  h.new_lines = new_lines;
  h.section = std::move(section);
  // The lines view one text the hunk keeps, as parse_patches() makes them.
  std::string all;
  for (const auto& [kind, text] : body) all += text;
  h.patch_text = std::make_shared<const std::string>(std::move(all));
  std::size_t at = 0;
  for (const auto& [kind, text] : body) {
    h.lines.push_back(
        HunkLine{kind, false, std::string_view(*h.patch_text).substr(at, text.size())});
    at += text.size();
  }
  return h;
}

std::vector<Patch> sample_patches() {
  Patch p;
  p.source = "0001-fix.patch";
  p.subject = "Fix SM120 tile sizes";
  p.patch_line = 1;
  FilePatch f1;
  f1.old_path = "a/python/pkg/attn.py";
  f1.new_path = "b/python/pkg/attn.py";
  f1.change = ChangeKind::kModify;
  f1.old_mode = kModeRegular;
  f1.new_mode = kModeExecutable;
  f1.old_blob = "1234abc";
  f1.new_blob = "5678def";
  f1.git = true;
  f1.patch_line = 8;
  f1.hunks.push_back(make_show_hunk(10, 3, 10, 4, "def attention(q, k, v):",
                                    {{LineKind::kContext, "a"},
                                     {LineKind::kRemoved, "b"},
                                     {LineKind::kAdded, "c"},
                                     {LineKind::kAdded, "d"},
                                     {LineKind::kContext, "e"}}));
  f1.hunks.back().patch_line = 13;
  p.files.push_back(f1);
  FilePatch f2;
  f2.old_path = "a/kern/old.cu";
  f2.new_path = "b/kern/new.cu";
  f2.change = ChangeKind::kRename;
  f2.similarity = 95;
  f2.git = true;
  f2.patch_line = 20;
  p.files.push_back(f2);
  FilePatch f3;
  f3.old_path = "a/img.png";
  f3.new_path = "b/img.png";
  f3.change = ChangeKind::kBinary;
  f3.binary = true;
  f3.git = true;
  f3.patch_line = 25;
  p.files.push_back(f3);
  return {p};
}

/// The evidence of a marker: `hits` as (path, line, text), `total` all of them found.
MarkerHits make_evidence(std::string text, bool regex, Marker::Origin origin,
                         std::vector<SearchHit> hits, std::size_t total) {
  MarkerHits m;
  m.marker = {std::move(text), regex, origin, origin == Marker::Origin::kHunk ? "pkg/attn.py" : ""};
  m.hits = std::move(hits);
  m.total = total;
  return m;
}

/// One applied patch of one file with evidence: two markers found (one of them on two lines,
/// one line holding both), one trailer regex and one hunk marker found nowhere.
VerifyReport evidence_report() {
  VerifyReport report;
  report.target = "tree";
  PatchReport p;
  p.source = "fix.patch";
  p.status = Status::kPartial;
  p.presence = Presence::kPartial;
  FileReport f;
  f.old_path = "a/pkg/attn.py";
  f.new_path = "b/pkg/attn.py";
  f.target_path = "pkg/attn.py";
  f.change = ChangeKind::kModify;
  f.status = Status::kPartial;
  p.files.push_back(f);
  p.evidence.push_back(make_evidence("CAP[0] == 12", false, Marker::Origin::kHunk,
                                     {{"pkg/attn.py", 4, "    if CAP[0] == 12:  # SM120 tiles"},
                                      {"pkg/attn.py", 30, "assert CAP[0] == 12"}},
                                     2));
  p.evidence.push_back(make_evidence("SM120 tiles", false, Marker::Origin::kHunk,
                                     {{"pkg/attn.py", 4, "    if CAP[0] == 12:  # SM120 tiles"}},
                                     1));
  p.evidence.push_back(make_evidence("sm_?120", true, Marker::Origin::kTrailer, {}, 0));
  p.evidence.push_back(make_evidence("num_stages = 1", false, Marker::Origin::kHunk, {}, 0));
  report.patches.push_back(p);
  return report;
}

// ---------------------------------------------------------------------------------------------
// JSON: verify

TEST(ReportJson, VerifyDocumentTopLevel) {
  const json doc = verify_to_json(sample_report());
  EXPECT_EQ(doc["schema"], "sm120check.verify/3");
  EXPECT_EQ(doc["tool"]["name"], "sm120check");
  EXPECT_EQ(doc["tool"]["version"], SM120CHECK_VERSION);
  EXPECT_EQ(doc["target"]["path"], "/srv/site-packages");
  EXPECT_EQ(doc["target"]["strip"], 1);
  EXPECT_EQ(doc["summary"], json::parse(R"({"applied": 0, "applicable": 0, "partial": 1,
                                            "conflict": 1, "unknown": 0, "error": 0,
                                            "skipped": 0, "presence": {"present": 0,
                                            "absent": 1, "unknown": 0, "partial": 1}})"));
  EXPECT_EQ(doc["exit_code"], 2);
  ASSERT_EQ(doc["patches"].size(), 2u);
}

// The streamed document is byte for byte the whole document's dump (written piece by piece so
// that memory does not grow with the hunks), for reports with and without patches, files,
// hunks, evidence, odd bytes, and with extra keys.
TEST(ReportJson, StreamedDocumentEqualsTheWholeDump) {
  VerifyReport empty;
  empty.target = "t";
  VerifyReport odd = sample_report();
  odd.patches[0].files[0].old_path = "a/caf\xe9\x1b.py";
  odd.patches[0].subject = "quote \" and \\ and \n";
  // Every byte value (NUL, each control character, DEL, lone and misplaced UTF-8 bytes) and
  // well-formed 2-, 3- and 4-byte sequences: escaped and replaced as nlohmann's dump does.
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte += static_cast<char>(c);
  odd.patches[0].files[0].reason =
      every_byte + "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xed\xa0\x80";
  odd.patches[0].files[0].hunks[0].match.diagnostic = "tab\there\r\f\b\x7f";
  odd.patches[1].files.clear();
  VerifyReport many = sample_report();
  for (int i = 0; i < 2000; ++i)  // more than one 1 MiB piece
    many.patches[0].files[0].hunks.push_back(many.patches[0].files[0].hunks.front());
  const VerifyReport evidence = evidence_report();
  using ordered = nlohmann::ordered_json;
  for (const VerifyReport* report :
       std::vector<const VerifyReport*>{&empty, &odd, &many, &evidence}) {
    ordered extra = ordered::object();
    extra["repository"] = nullptr;
    extra["revisions"] = ordered::array({1, 2});
    ordered whole = verify_to_json(*report);
    for (auto it = extra.begin(); it != extra.end(); ++it) whole[it.key()] = it.value();
    std::string streamed;
    std::size_t pieces = 0;
    write_verify_json(*report, extra, [&](std::string_view piece) {
      streamed += piece;
      ++pieces;
    });
    // (EXPECT_TRUE: gtest's diff of two equal-length megabyte strings takes seconds)
    EXPECT_TRUE(streamed == whole.dump(2, ' ', false, ordered::error_handler_t::replace) + "\n")
        << streamed.substr(0, 2000);
    if (report == &many) EXPECT_GT(pieces, 1u);
  }
}

TEST(ReportJson, VerifyPatchAndFileFields) {
  const json doc = json::parse(verify_to_json(sample_report()).dump(2));
  const json& p1 = doc["patches"][0];
  EXPECT_EQ(p1["source"], "0001-fix.patch");
  EXPECT_EQ(p1["subject"], "Fix SM120 tile sizes");
  EXPECT_EQ(p1["line"], 1);
  EXPECT_EQ(p1["status"], "partial");
  EXPECT_EQ(p1["presence"], "partial");
  EXPECT_TRUE(p1["error"].is_null());
  EXPECT_EQ(p1["strip"], 1);
  EXPECT_EQ(p1["strip_detected"], true);
  ASSERT_EQ(p1["files"].size(), 2u);
  const json& f1 = p1["files"][0];
  EXPECT_EQ(f1["old_path"], "a/python/pkg/attn.py");
  EXPECT_EQ(f1["new_path"], "b/python/pkg/attn.py");
  EXPECT_EQ(f1["target_path"], "python/pkg/attn.py");
  EXPECT_EQ(f1["change"], "modify");
  EXPECT_EQ(f1["status"], "partial");
  EXPECT_EQ(f1["presence"], "partial");
  EXPECT_TRUE(f1["reason"].is_null());
  ASSERT_EQ(f1["hunks"].size(), 3u);
  const json& f2 = p1["files"][1];
  EXPECT_EQ(f2["old_path"], "/dev/null");
  EXPECT_EQ(f2["change"], "add");
  EXPECT_EQ(f2["status"], "applied");
  EXPECT_EQ(f2["hunks"], json::array());

  const json& p2 = doc["patches"][1];
  EXPECT_EQ(p2["line"], 57);
  EXPECT_EQ(p2["strip_detected"], false);
  EXPECT_EQ(p2["status"], "conflict");
  EXPECT_EQ(p2["files"][0]["change"], "rename");
  EXPECT_EQ(p2["files"][0]["reason"], "renamed file content differs");
}

TEST(ReportJson, VerifyHunkFields) {
  const json doc = verify_to_json(sample_report());
  const json& h1 = doc["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h1, json::parse(R"({"index": 1, "old_start": 10, "old_lines": 7, "new_start": 10,
      "new_lines": 9, "status": "applicable", "line": 17, "offset": 7, "fuzz": 0,
      "kind": "exact", "presence": "absent", "presence_reason": null, "drift": null,
      "places": [], "both_images": false, "diagnostic": null, "closest": null})"));
  const json& h2 = doc["patches"][0]["files"][0]["hunks"][1];
  EXPECT_EQ(h2["status"], "applied");
  EXPECT_EQ(h2["line"], 49);
  EXPECT_EQ(h2["fuzz"], 1);
  EXPECT_EQ(h2["kind"], "fuzz");
  EXPECT_EQ(h2["presence"], "present");
  const json& h3 = doc["patches"][0]["files"][0]["hunks"][2];
  EXPECT_EQ(h3["both_images"], true);
  EXPECT_EQ(h3["offset"], 0);
  const json& conflict = doc["patches"][1]["files"][0]["hunks"][0];
  EXPECT_EQ(conflict["status"], "conflict");
  EXPECT_TRUE(conflict["line"].is_null());
  EXPECT_TRUE(conflict["offset"].is_null());
  EXPECT_TRUE(conflict["fuzz"].is_null());
  EXPECT_EQ(conflict["diagnostic"], "line-ending-mismatch");
  EXPECT_TRUE(conflict["closest"].is_null());
  EXPECT_TRUE(conflict["kind"].is_null());
  EXPECT_EQ(conflict["presence"], "absent");
  EXPECT_EQ(conflict["presence_reason"], "not-found");
}

TEST(ReportJson, DriftedAndAmbiguousHunks) {
  VerifyReport report = sample_report();
  HunkMatch& drifted = report.patches[0].files[0].hunks[1].match;
  drifted = HunkMatch{};
  drifted.status = HunkStatus::kApplied;
  drifted.kind = MatchKind::kDrifted;
  drifted.presence = Presence::kPresent;
  drifted.presence_reason = "drifted";
  drifted.line = 480;
  drifted.offset = 431;
  drifted.context_agree = 2;
  drifted.context_lines = 6;
  HunkMatch& ambiguous = report.patches[1].files[0].hunks[0].match;
  ambiguous = HunkMatch{};
  ambiguous.status = HunkStatus::kUnknown;
  ambiguous.presence = Presence::kUnknown;
  ambiguous.presence_reason = "ambiguous";
  ambiguous.places = {40, 90};
  const json doc = verify_to_json(report);
  const json& d = doc["patches"][0]["files"][0]["hunks"][1];
  EXPECT_EQ(d["kind"], "drifted");
  EXPECT_EQ(d["presence"], "present");
  EXPECT_EQ(d["line"], 480);
  EXPECT_EQ(d["drift"], json::parse(R"({"context_agree": 2, "context_lines": 6})"));
  const json& a = doc["patches"][1]["files"][0]["hunks"][0];
  EXPECT_EQ(a["status"], "unknown");
  EXPECT_TRUE(a["line"].is_null());
  EXPECT_TRUE(a["kind"].is_null());
  EXPECT_EQ(a["presence_reason"], "ambiguous");
  EXPECT_EQ(a["places"], json::parse("[40, 90]"));

  const std::string text = verify_text(report, false);
  EXPECT_NE(text.find("applied at line 480 (context differs: 2 of 6 context lines)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("unknown; presence unknown: the change fits 2 places equally (lines 40, "
                      "90)"),
            std::string::npos)
      << text;
}

TEST(ReportJson, ConflictNearMissIsReported) {
  VerifyReport report = sample_report();
  HunkMatch& m = report.patches[1].files[0].hunks[0].match;
  m.diagnostic.clear();
  m.closest_image = Image::kPost;
  m.closest_line = 15;
  m.closest_agree = 3;
  m.closest_lines = 4;
  m.closest_differs_at = 16;
  const json doc = verify_to_json(report);
  EXPECT_EQ(doc["patches"][1]["files"][0]["hunks"][0]["closest"],
            json::parse(R"({"image": "post-image", "line": 15, "agree": 3, "of": 4,
                            "first_difference": 16})"));
  std::ostringstream text;
  render_verify_text(text, report, false);
  EXPECT_NE(text.str().find("conflict (nearest: post-image at line 15, 3 of 4 lines agree; "
                            "line 16 differs)"),
            std::string::npos)
      << text.str();
}

TEST(ReportJson, NegativeOffsetIsSigned) {
  VerifyReport report = sample_report();
  report.patches[0].files[0].hunks[0].match.offset = -3;
  const json doc = json::parse(verify_to_json(report).dump());
  EXPECT_EQ(doc["patches"][0]["files"][0]["hunks"][0]["offset"].get<long>(), -3);
}

TEST(ReportJson, NullsForMissingValues) {
  VerifyReport report;
  report.target = "t";
  PatchReport p;
  p.source = "-";
  p.status = Status::kError;
  p.error = "-:3: malformed hunk header";
  p.strip = 0;
  FileReport f;
  f.old_path = "x";
  f.new_path = "x";
  f.status = Status::kError;  // empty reason, no target path
  p.files.push_back(f);
  report.patches.push_back(p);
  PatchReport q;
  q.source = "b.diff";
  q.status = Status::kApplied;
  q.strip = 1;
  report.patches.push_back(q);

  const json doc = verify_to_json(report);
  EXPECT_TRUE(doc["target"]["strip"].is_null());  // 0 and 1 differ
  EXPECT_TRUE(doc["patches"][0]["subject"].is_null());
  EXPECT_EQ(doc["patches"][0]["error"], "-:3: malformed hunk header");
  EXPECT_TRUE(doc["patches"][0]["files"][0]["target_path"].is_null());
  EXPECT_TRUE(doc["patches"][0]["files"][0]["reason"].is_null());
  EXPECT_TRUE(doc["patches"][1]["error"].is_null());
  EXPECT_EQ(doc["summary"]["error"], 1);
  EXPECT_EQ(doc["summary"]["applied"], 1);
  EXPECT_EQ(doc["exit_code"], 3);
}

TEST(ReportJson, EvidenceIsAnArrayPerPatch) {
  const json doc = json::parse(verify_to_json(evidence_report()).dump(2));
  const json& e = doc["patches"][0]["evidence"];
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0], json::parse(R"({"text": "CAP[0] == 12", "regex": false, "origin": "hunk",
      "file": "pkg/attn.py", "hits": [
        {"path": "pkg/attn.py", "line": 4, "text": "    if CAP[0] == 12:  # SM120 tiles"},
        {"path": "pkg/attn.py", "line": 30, "text": "assert CAP[0] == 12"}],
      "hit_count": 2})"));
  EXPECT_EQ(e[2], json::parse(R"({"text": "sm_?120", "regex": true, "origin": "trailer",
      "file": null, "hits": [], "hit_count": 0})"));
  // Keys in the documented order; "evidence" comes after "files".
  std::vector<std::string> keys;
  const nlohmann::ordered_json ordered = verify_to_json(evidence_report());
  for (const auto& [key, value] : ordered["patches"][0].items()) keys.push_back(key);
  auto at = std::find(keys.begin(), keys.end(), "evidence");
  ASSERT_NE(at, keys.end());
  EXPECT_EQ(*(at - 1), "files");
  // A patch without evidence has an empty array, never null.
  EXPECT_EQ(json::parse(verify_to_json(sample_report()).dump())["patches"][0]["evidence"],
            json::array());
}

TEST(ReportJson, ExitCodesFollowStatuses) {
  auto with = [](std::vector<Status> statuses) {
    VerifyReport report;
    for (Status s : statuses) {
      PatchReport p;
      p.status = s;
      report.patches.push_back(p);
    }
    return verify_to_json(report)["exit_code"].get<int>();
  };
  EXPECT_EQ(with({}), 0);
  EXPECT_EQ(with({Status::kApplied, Status::kApplied}), 0);
  EXPECT_EQ(with({Status::kApplied, Status::kApplicable}), 1);
  EXPECT_EQ(with({Status::kApplicable, Status::kPartial}), 2);
  EXPECT_EQ(with({Status::kApplied, Status::kUnknown}), 2);
  EXPECT_EQ(with({Status::kConflict, Status::kError}), 3);
}

TEST(ReportJson, EmptyReportHasNullStripAndZeroSummary) {
  VerifyReport report;
  report.target = "tree";
  const json doc = verify_to_json(report);
  EXPECT_EQ(doc["patches"], json::array());
  EXPECT_TRUE(doc["target"]["strip"].is_null());
  for (const char* key : {"applied", "applicable", "partial", "conflict", "unknown", "error"})
    EXPECT_EQ(doc["summary"][key], 0) << key;
}

TEST(ReportJson, InvalidUtf8IsReplacedSoDumpDoesNotThrow) {
  VerifyReport report = sample_report();
  report.target = "/srv/caf\xe9";                         // latin-1 e-acute
  report.patches[0].subject = "Fix \xff\xfe tiles";       // never valid in UTF-8
  report.patches[0].files[0].old_path = "a/na\xefve.py";  // latin-1 i-diaeresis
  report.patches[0].files[0].reason = "bad \xc3";         // truncated sequence
  report.patches[1].files[0].hunks[0].match.diagnostic = "x\x80y";
  const json doc = verify_to_json(report);
  std::string text;
  ASSERT_NO_THROW(text = doc.dump(2));
  const json back = json::parse(text);
  EXPECT_EQ(back["target"]["path"], "/srv/caf\xef\xbf\xbd");
  EXPECT_EQ(back["patches"][0]["subject"], "Fix \xef\xbf\xbd\xef\xbf\xbd tiles");
  EXPECT_EQ(back["patches"][0]["files"][0]["old_path"], "a/na\xef\xbf\xbdve.py");
  EXPECT_EQ(back["patches"][0]["files"][0]["reason"], "bad \xef\xbf\xbd");
  EXPECT_EQ(back["patches"][1]["files"][0]["hunks"][0]["diagnostic"], "x\xef\xbf\xbdy");
}

TEST(ReportJson, ValidUtf8IsKept) {
  VerifyReport report = sample_report();
  report.patches[0].subject = "Fix caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80";
  const json doc = json::parse(verify_to_json(report).dump());
  EXPECT_EQ(doc["patches"][0]["subject"],
            "Fix caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80");
}

// ---------------------------------------------------------------------------------------------
// JSON: show

TEST(ReportJson, ShowDocument) {
  const json doc = json::parse(show_to_json(sample_patches()).dump(2));
  EXPECT_EQ(doc["schema"], "sm120check.show/1");
  ASSERT_EQ(doc["patches"].size(), 1u);
  const json& p = doc["patches"][0];
  EXPECT_EQ(p["source"], "0001-fix.patch");
  EXPECT_EQ(p["subject"], "Fix SM120 tile sizes");
  EXPECT_EQ(p["line"], 1);
  ASSERT_EQ(p["files"].size(), 3u);
  const json& f1 = p["files"][0];
  EXPECT_EQ(f1["old_path"], "a/python/pkg/attn.py");
  EXPECT_EQ(f1["new_path"], "b/python/pkg/attn.py");
  EXPECT_EQ(f1["change"], "modify");
  EXPECT_EQ(f1["old_mode"], "100644");
  EXPECT_EQ(f1["new_mode"], "100755");
  EXPECT_TRUE(f1["similarity"].is_null());
  EXPECT_EQ(f1["binary"], false);
  EXPECT_EQ(f1["old_blob"], "1234abc");
  EXPECT_EQ(f1["new_blob"], "5678def");
  EXPECT_EQ(f1["line"], 8);
  ASSERT_EQ(f1["hunks"].size(), 1u);
  EXPECT_EQ(f1["hunks"][0], json::parse(R"({"old_start": 10, "old_lines": 3, "new_start": 10,
      "new_lines": 4, "section": "def attention(q, k, v):", "added": 2, "removed": 1,
      "line": 13})"));
  const json& f2 = p["files"][1];
  EXPECT_EQ(f2["change"], "rename");
  EXPECT_EQ(f2["similarity"], 95);
  EXPECT_TRUE(f2["old_mode"].is_null());
  EXPECT_TRUE(f2["new_mode"].is_null());
  EXPECT_TRUE(f2["old_blob"].is_null());
  EXPECT_TRUE(f2["new_blob"].is_null());
  EXPECT_EQ(f2["hunks"], json::array());
  const json& f3 = p["files"][2];
  EXPECT_EQ(f3["change"], "binary");
  EXPECT_EQ(f3["binary"], true);
}

TEST(ReportJson, ShowSectionNullAndSymlinkMode) {
  std::vector<Patch> patches = sample_patches();
  patches[0].subject.reset();
  patches[0].files[0].hunks[0].section.clear();
  patches[0].files[0].new_mode = kModeSymlink;
  patches[0].files[0].old_path = "a/\x1b[2Jevil\xe9";
  const json doc = json::parse(show_to_json(patches).dump());
  EXPECT_TRUE(doc["patches"][0]["subject"].is_null());
  EXPECT_TRUE(doc["patches"][0]["files"][0]["hunks"][0]["section"].is_null());
  EXPECT_EQ(doc["patches"][0]["files"][0]["new_mode"], "120000");
  // JSON escapes the control character itself; the invalid byte becomes U+FFFD.
  EXPECT_EQ(doc["patches"][0]["files"][0]["old_path"], "a/\x1b[2Jevil\xef\xbf\xbd");
}

// ---------------------------------------------------------------------------------------------
// UTF-8 sanitizing and terminal escaping

TEST(ReportUtf8, SanitizeKeepsWellFormedText) {
  const std::string text = "ascii \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf";
  EXPECT_EQ(sanitize_utf8(text), text);
  EXPECT_EQ(sanitize_utf8(""), "");
  EXPECT_EQ(sanitize_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(ReportUtf8, SanitizeReplacesIllFormedSequences) {
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(sanitize_utf8("caf\xe9"), "caf" + r);               // latin-1 byte
  EXPECT_EQ(sanitize_utf8("\x80"), r);                          // lone continuation
  EXPECT_EQ(sanitize_utf8("\xc0\xaf"), r + r);                  // overlong '/'
  EXPECT_EQ(sanitize_utf8("\xed\xa0\x80"), r + r + r);          // surrogate D800
  EXPECT_EQ(sanitize_utf8("\xf4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(sanitize_utf8("\xe2\x82"
                          "A"),
            r + "A");                           // truncated: one U+FFFD
  EXPECT_EQ(sanitize_utf8("\xf0\x9f\x98"), r);  // truncated at the end
  EXPECT_EQ(sanitize_utf8("\xf5\xff"), r + r);
}

TEST(ReportEscape, ControlCharactersAreEscaped) {
  EXPECT_EQ(escape_for_terminal("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(escape_for_terminal("tab\there\nnl\rcr"), "tab\\x09here\\x0anl\\x0dcr");
  EXPECT_EQ(escape_for_terminal("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_for_terminal(std::string("nul\0", 4)), "nul\\x00");
  EXPECT_EQ(escape_for_terminal("bell\a"), "bell\\x07");
}

TEST(ReportEscape, C1AndBidiControlsAreEscaped) {
  EXPECT_EQ(escape_for_terminal("csi\xc2\x9b"
                                "2J"),
            "csi\\u009b2J");  // U+009B CSI
  EXPECT_EQ(escape_for_terminal("abc\xe2\x80\xae"
                                "cba"),
            "abc\\u202ecba");                                   // RLO
  EXPECT_EQ(escape_for_terminal("\xe2\x81\xa6x"), "\\u2066x");  // LRI
}

TEST(ReportEscape, InvalidBytesAreEscapedAndPrintableTextKept) {
  EXPECT_EQ(escape_for_terminal("caf\xe9.py"), "caf\\xe9.py");
  EXPECT_EQ(escape_for_terminal("raw \x9b"), "raw \\x9b");
  EXPECT_EQ(escape_for_terminal("caf\xc3\xa9 \xe6\x97\xa5 a\\b ~"),
            "caf\xc3\xa9 \xe6\x97\xa5 a\\b ~");
}

// ---------------------------------------------------------------------------------------------
// Text: verify

TEST(ReportText, VerifyExactLines) {
  const std::vector<std::string> expected = {
      "target: /srv/site-packages",
      "",
      "patch 1/2: 0001-fix.patch: Fix SM120 tile sizes  [partial]",
      "  strip level: 1 (detected)",
      "  fix: partial (2 of 3 hunks present, 1 absent)",
      "  M python/pkg/attn.py                           partial",
      "      hunk 1 @@ -10,7 +10,9 @@  applicable at line 17 (offset +7)",
      "      hunk 2 @@ -40,6 +42,8 @@  applied at line 49 (offset +7, fuzz 1)",
      "      hunk 3 @@ -80,3 +84,3 @@  applied at line 84 (both images match; chose applied)",
      "  A docs/new.md                                  applied",
      "",
      "patch 2/2: series.mbox:57: Rename kernel         [conflict]",
      "  strip level: 1 (given)",
      "  fix: absent (0 of 1 hunk present, 1 absent)",
      "  R kern/old.cu -> kern/new.cu                   conflict (renamed file content differs)",
      "      hunk 1 @@ -5,4 +5,5 @@  conflict: differs only in line endings (CRLF vs LF); "
      "change absent: its added lines are nowhere in the file",
      "",
      "summary: 2 patches: 1 partial, 1 conflict  -> exit 2",
  };
  EXPECT_EQ(split_lines(verify_text(sample_report(), false)), expected);
}

TEST(ReportText, VerifyErrorAndDiagnostics) {
  VerifyReport report;
  report.target = "tree";
  PatchReport p;
  p.source = "bad.patch";
  p.status = Status::kError;
  p.error = "bad.patch:4: hunk body shorter than its header says";
  report.patches.push_back(p);
  PatchReport q;
  q.source = "ws.patch";
  q.status = Status::kConflict;
  q.presence = Presence::kAbsent;
  q.strip = 0;
  FileReport f;
  f.old_path = "src/a.c";
  f.new_path = "src/a.c";
  f.change = ChangeKind::kModify;
  f.status = Status::kConflict;
  f.hunks.push_back(
      make_hunk(1, 1, 1, 1, 1, HunkStatus::kConflict, 0, 0, 0, false, "whitespace-only-mismatch"));
  f.hunks.push_back(
      make_hunk(2, 20, 2, 20, 2, HunkStatus::kConflict, 0, 0, 0, false, "final-newline-mismatch"));
  f.hunks.push_back(make_hunk(10, 300, 2, 300, 3, HunkStatus::kConflict, 0, 0));
  f.hunks.push_back(make_hunk(11, 400, 2, 397, 3, HunkStatus::kApplicable, 390, -10));
  q.files.push_back(f);
  FileReport g;  // no target path: shown stripped at the patch's level
  g.old_path = "b/img.png";
  g.new_path = "b/img.png";
  g.change = ChangeKind::kBinary;
  g.status = Status::kUnknown;
  g.reason = "binary patch without data";
  q.files.push_back(g);
  report.patches.push_back(q);

  const std::vector<std::string> expected = {
      "target: tree",
      "",
      "patch 1/2: bad.patch  [error]",
      "  error: bad.patch:4: hunk body shorter than its header says",
      "",
      "patch 2/2: ws.patch   [conflict]",
      "  strip level: 0 (given)",
      "  fix: absent (0 of 4 hunks present, 4 absent)",
      "  M src/a.c           conflict",
      "      hunk 1 @@ -1,1 +1,1 @@       conflict: differs only in white space (try "
      "--ignore-whitespace); change absent: its added lines are nowhere in the file",
      "      hunk 2 @@ -20,2 +20,2 @@     conflict: differs only in the newline at end of file; "
      "change absent: its added lines are nowhere in the file",
      "      hunk 10 @@ -300,2 +300,3 @@  conflict; change absent: its added lines are nowhere in "
      "the file",
      "      hunk 11 @@ -400,2 +397,3 @@  applicable at line 390 (offset -10)",
      "  B b/img.png         unknown (binary patch without data)",
      "",
      "summary: 2 patches: 1 conflict, 1 error  -> exit 3",
  };
  EXPECT_EQ(split_lines(verify_text(report, false)), expected);
}

TEST(ReportText, EvidenceListsLinesThenMarkersNotFound) {
  const std::vector<std::string> expected = {
      "target: tree",
      "",
      "patch 1/1: fix.patch  [partial]",
      "  strip level: 1 (given)",
      "  fix: partial",
      "  M pkg/attn.py       partial",
      "  evidence:",
      "    pkg/attn.py:4:     if CAP[0] == 12:  # SM120 tiles",
      "    pkg/attn.py:30: assert CAP[0] == 12",
      "    not in pkg/attn.py: regex \"sm_?120\", \"num_stages = 1\"",
      "",
      "summary: 1 patch: 1 partial  -> exit 2",
  };
  EXPECT_EQ(split_lines(verify_text(evidence_report(), false)), expected);
}

TEST(ReportText, AMarkerPcre2GaveUpOnIsNotCalledAbsent) {
  VerifyReport report = evidence_report();
  MarkerHits m = make_evidence("(a+)+$", true, Marker::Origin::kTrailer, {}, 0);
  m.error_lines = 2;
  m.errors = {"pkg/attn.py:7: match limit exceeded"};
  report.patches[0].evidence = {m};
  const std::string text = verify_text(report, false);
  EXPECT_NE(text.find("    not evaluated on 2 lines: regex \"(a+)+$\" (pkg/attn.py:7: match "
                      "limit exceeded)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("not in"), std::string::npos) << text;
}

TEST(ReportText, EvidenceIsCappedAndTheRestCounted) {
  VerifyReport report = evidence_report();
  PatchReport& p = report.patches[0];
  std::vector<SearchHit> hits;
  for (std::size_t line = 1; line <= 14; ++line)
    hits.push_back({"pkg/attn.py", 100 + line, "x = tile(" + std::to_string(line) + ")"});
  // 14 lines kept of 20 found: 10 shown, 4 kept but not shown and 6 not kept are counted.
  p.evidence = {make_evidence("tile(", false, Marker::Origin::kHunk, hits, 20)};
  const std::vector<std::string> lines = split_lines(verify_text(report, false));
  auto at = std::find(lines.begin(), lines.end(), "  evidence:");
  ASSERT_NE(at, lines.end());
  ASSERT_GT(lines.end() - at, 12);
  EXPECT_EQ(at[1], "    pkg/attn.py:101: x = tile(1)");
  EXPECT_EQ(at[10], "    pkg/attn.py:110: x = tile(10)");
  EXPECT_EQ(at[11], "    ... 10 more hits");
  EXPECT_EQ(at[12], "");  // every marker was found: no "not in" line
}

TEST(ReportText, EvidenceNamesFewFilesAndCountsMany) {
  VerifyReport report = evidence_report();
  PatchReport& p = report.patches[0];
  for (std::size_t missing = 0; missing < 7; ++missing)
    p.evidence.push_back(
        make_evidence("gone_" + std::to_string(missing), false, Marker::Origin::kHunk, {}, 0));
  FileReport second = p.files[0];
  second.target_path = "pkg/\x1b[2Jdecode.py";
  p.files.push_back(second);
  p.files.push_back(p.files[0]);  // the same path twice is named once
  std::string text = verify_text(report, false);
  EXPECT_NE(text.find("    not in pkg/attn.py, pkg/\\x1b[2Jdecode.py: regex \"sm_?120\", "
                      "\"num_stages = 1\", \"gone_0\", \"gone_1\", \"gone_2\" and 4 more\n"),
            std::string::npos)
      << text;
  for (const char* path : {"pkg/c.py", "pkg/d.py"}) {
    p.files.push_back(p.files[0]);
    p.files.back().target_path = path;
  }
  text = verify_text(report, false);
  EXPECT_NE(text.find("    not in the 4 verified files: regex"), std::string::npos) << text;
}

TEST(ReportText, NoEvidenceBlockWithoutEvidence) {
  EXPECT_EQ(verify_text(sample_report(), false).find("evidence"), std::string::npos);
}

TEST(ReportText, VerifyEmptyReport) {
  VerifyReport report;
  report.target = "t";
  EXPECT_EQ(verify_text(report, false), "target: t\n\nsummary: 0 patches  -> exit 0\n");
}

TEST(ReportText, NoAnsiEscapesWithoutColor) {
  EXPECT_EQ(verify_text(sample_report(), false).find('\x1b'), std::string::npos);
  EXPECT_EQ(show_text(sample_patches(), false).find('\x1b'), std::string::npos);
}

TEST(ReportText, ColorsStatusesWhenAsked) {
  VerifyReport report = sample_report();
  PatchReport unknown;
  unknown.source = "u.patch";
  unknown.status = Status::kUnknown;
  report.patches.push_back(unknown);
  const std::string text = verify_text(report, true);
  EXPECT_NE(text.find("\x1b[32mapplied\x1b[0m"), std::string::npos);     // green
  EXPECT_NE(text.find("\x1b[33mapplicable\x1b[0m"), std::string::npos);  // yellow
  EXPECT_NE(text.find("[\x1b[33mpartial\x1b[0m]"), std::string::npos);   // yellow
  EXPECT_NE(text.find("[\x1b[31mconflict\x1b[0m]"), std::string::npos);  // red
  EXPECT_NE(text.find("[\x1b[35munknown\x1b[0m]"), std::string::npos);   // magenta
  // The visible text is the same as without colour once the escapes are removed.
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      i = text.find('m', i);
      continue;
    }
    plain += text[i];
  }
  EXPECT_EQ(plain, verify_text(report, false));
  EXPECT_NE(show_text(sample_patches(), true).find('\x1b'), std::string::npos);
}

TEST(ReportText, HostileNamesCannotInjectEscapes) {
  VerifyReport report = sample_report();
  report.target = "/tmp/\x1b]0;owned\a";
  report.patches[0].source = "evil\x1b[2J.patch";
  report.patches[0].subject = "Fix \x1b[31mred\xc2\x9b";
  report.patches[0].files[0].target_path = "caf\xe9/\x1b[1K.py";
  report.patches[0].files[1].reason = "reason\r\x1b[A";
  report.patches[1].error = "";
  report.patches[1].files[0].hunks[0].match.diagnostic = "odd\x1b";
  for (bool color : {false, true}) {
    const std::string text = verify_text(report, color);
    // Only our own SGR sequences may appear, and none when color is false.
    std::size_t pos = 0;
    while ((pos = text.find('\x1b', pos)) != std::string::npos) {
      EXPECT_TRUE(color);
      const std::size_t end = text.find('m', pos);
      ASSERT_NE(end, std::string::npos);
      const std::string seq = text.substr(pos, end - pos + 1);
      EXPECT_TRUE(seq == "\x1b[0m" || seq == "\x1b[1m" || seq == "\x1b[31m" || seq == "\x1b[32m" ||
                  seq == "\x1b[33m" || seq == "\x1b[35m")
          << seq;
      pos = end;
    }
    EXPECT_EQ(text.find('\r'), std::string::npos);
    EXPECT_EQ(text.find('\a'), std::string::npos);
    EXPECT_NE(text.find("target: /tmp/\\x1b]0;owned\\x07"), std::string::npos);
    EXPECT_NE(text.find("evil\\x1b[2J.patch"), std::string::npos);
    EXPECT_NE(text.find("Fix \\x1b[31mred\\u009b"), std::string::npos);
    EXPECT_NE(text.find("  M caf\\xe9/\\x1b[1K.py"), std::string::npos);
    EXPECT_NE(text.find("(reason\\x0d\\x1b[A)"), std::string::npos);
    EXPECT_NE(text.find(": odd\\x1b"), std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------
// Text: show

TEST(ReportText, ShowExactLines) {
  std::vector<Patch> patches = sample_patches();
  Patch second;
  second.source = "series.mbox";
  second.patch_line = 40;
  FilePatch f;
  f.old_path = "/dev/null";
  f.new_path = "docs/new.md";
  f.change = ChangeKind::kAdd;
  f.new_mode = kModeRegular;
  f.old_blob = "0000000";
  f.new_blob = "e69de29";
  f.hunks.push_back(
      make_show_hunk(0, 0, 1, 2, "", {{LineKind::kAdded, "x"}, {LineKind::kAdded, "y"}}));
  second.files.push_back(f);
  patches.push_back(second);
  Patch empty;
  empty.source = "empty.patch";
  empty.subject = "Nothing";
  patches.push_back(empty);

  const std::vector<std::string> expected = {
      "patch 1/3: 0001-fix.patch: Fix SM120 tile sizes",
      "  modify a/python/pkg/attn.py -> b/python/pkg/attn.py",
      "         mode 100644 -> 100755, index 1234abc..5678def",
      "    hunk 1 @@ -10,3 +10,4 @@ def attention(q, k, v):  +2 -1",
      "  rename a/kern/old.cu -> b/kern/new.cu",
      "         similarity 95%",
      "  binary a/img.png -> b/img.png",
      "         binary",
      "",
      "patch 2/3: series.mbox:40",
      "  add    /dev/null -> docs/new.md",
      "         new mode 100644, index 0000000..e69de29",
      "    hunk 1 @@ -0,0 +1,2 @@  +2 -0",
      "",
      "patch 3/3: empty.patch: Nothing",
      "  (no files)",
  };
  EXPECT_EQ(split_lines(show_text(patches, false)), expected);
}

TEST(ReportText, ShowEscapesHostileNames) {
  std::vector<Patch> patches = sample_patches();
  patches[0].files[0].new_path = "b/\x1b[2Jx";
  patches[0].files[0].hunks[0].section = "def \x1b]0;t\a";
  patches[0].files[0].new_blob = "\x1b";
  const std::string text = show_text(patches, false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\a'), std::string::npos);
  EXPECT_NE(text.find("-> b/\\x1b[2Jx"), std::string::npos);
  EXPECT_NE(text.find("def \\x1b]0;t\\x07"), std::string::npos);
}

}  // namespace
}  // namespace sm120check
