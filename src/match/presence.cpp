// Words for a hunk's presence reason (see match.hpp: presence_words), shared by the text
// report and the blockers of `apply`.
#include <fmt/format.h>

#include "sm120check/match.hpp"

namespace sm120check {
namespace {

/// "lines 10, 50" / "line 10".
std::string lines_text(const std::vector<std::size_t>& lines) {
  std::string out = lines.size() == 1 ? "line " : "lines ";
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : ", ", lines[i]);
  return out;
}

}  // namespace

std::string presence_words(const HunkMatch& m) {
  const std::string& code = m.presence_reason;
  const std::string at = m.places.empty() ? std::string() : " (" + lines_text(m.places) + ")";
  if (code == "not-found") return "its added lines are nowhere in the file";
  if (code == "removed-lines-present" && m.presence != Presence::kAbsent)
    return "both the old and the new code stand" + at;
  if (code == "removed-lines-present")
    return m.inserts_only ? "its context stands where it belongs without its added lines" + at
                          : "the code it replaces stands where it belongs" + at;
  if (code == "ambiguous") {
    // A hunk whose change groups were looked for one by one (lines inserted between them)
    // takes the first group's reason without its places: part of it fits several places.
    if (m.places.empty()) return "part of the change fits several places equally";
    return m.places.size() == 1
               ? "another hunk's change was found at the same place" + at
               : fmt::format("the change fits {} places equally{}", m.places.size(), at);
  }
  if (code == "whitespace-differs")
    return "its added lines stand with other white space (try --ignore-whitespace)";
  if (code == "found-elsewhere") return "its lines stand only away from its context" + at;
  if (code == "out-of-hunk-order")
    return "its change stands only out of hunk order, away from where the hunks around it were "
           "found" +
           at;
  if (code == "final-newline-differs")
    return "its lines stand at the end of the file, which lacks the final newline the patch has";
  if (code == "context-crossed")
    return "the statement the hunk puts next to its change stands again on the change's other "
           "side (assigned again after it, or the change moved across it: an override above the "
           "value it overrides, code after a return)" +
           at;
  if (code == "partly-present")
    return "most of its new lines stand by where it belongs, not all as the hunk has them" + at;
  if (code == "other-section")
    return "its change stands only under another function than the one the hunk names" + at;
  if (code == "section-ambiguous")
    return "its change stands under a function the hunk's section does not tell apart from "
           "another (overloads, a cut signature, or a class without the method), and the "
           "hunk's context does not stand around it in full" +
           at;
  if (code == "file-missing") return "the file is not in the target";
  if (code == "edited-since")
    return "the lines where it belongs were edited since, perhaps from its new code: they hold "
           "neither image, and words only its added lines have (or, when it adds none of its "
           "own, none of those only its removed lines have)" +
           at;
  if (code == "changed-lines-differ")
    return "some of its added lines are there, not as the hunk has them";
  if (code == "context-differs") return "the lines around the deletion no longer meet";
  if (code == "repeats-context")
    return "its changed lines repeat the lines around them: the file holds both images at one "
           "place" +
           at;
  if (code == "file-not-empty")
    return "the patch fills an empty file (its index line names the empty blob), and this one "
           "has lines";
  if (code == "trivial-lines") return "blank or trivial lines only: they prove nothing";
  if (code == "zero-context-elsewhere")
    return "a hunk without context, not at its line; its lines stand elsewhere" + at;
  if (code == "zero-context-gone")
    return "a hunk without context whose removed lines are gone: deleted or changed, cannot tell";
  return {};
}

}  // namespace sm120check
