// The patches of one run as a series: a hunk that a later patch of the run changed again.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "internal.hpp"
#include "sm120check/error.hpp"
#include "sm120check/markers.hpp"

namespace sm120check::detail {
namespace {

/// `content` with the exactly matched (fuzz 0) applied hunks of `hunks` undone: each post-image
/// replaced by its pre-image. Used to see a file as it was before a later patch of the run.
std::string undo_applied(const std::string& content, const std::vector<Hunk>& hunks,
                         const MatchOptions& options) {
  FileText text(content);
  std::vector<HunkMatch> matches = match_hunks(text, hunks, options);
  std::vector<std::size_t> starts{0};  // byte offset of each line, plus the end
  for (std::size_t i = 0; i < content.size(); ++i)
    if (content[i] == '\n') starts.push_back(i + 1);
  if (starts.back() != content.size()) starts.push_back(content.size());
  std::string out = content;
  for (std::size_t k = hunks.size(); k-- > 0;) {  // last first: earlier offsets stay valid
    const HunkMatch& m = matches[k];
    if (m.status != HunkStatus::kApplied || m.kind != MatchKind::kExact || m.line == 0) continue;
    const std::vector<Hunk> one{hunks[k]};
    const std::string post = whole_image(one, Image::kPost);
    const std::size_t post_lines = hunks[k].lines.size() - hunks[k].removed();
    const std::size_t first = m.line - 1, last = first + post_lines;
    if (post_lines == 0 || last >= starts.size()) continue;
    const std::size_t from = starts[first], to = starts[last];
    if (out.compare(from, to - from, post) != 0) continue;  // folded white space: leave it
    out.replace(from, to - from, whole_image(one, Image::kPre));
  }
  return out;
}

}  // namespace

/// A series verified against its final tree: a patch whose lines a later patch of the same run
/// changed again conflicts there, although its fix is in. For each conflicting hunk, the later
/// patches' applied hunks on that file are undone (last patch first); a hunk whose post-image
/// then matches is `applied`, marked "superseded" (diagnostic) with the later patch named.
void resolve_superseded(const std::vector<Patch>& patches, VerifyReport& report, Context& ctx) {
  for (std::size_t i = 0; i + 1 < report.patches.size(); ++i) {
    PatchReport& pr = report.patches[i];
    bool changed = false;
    for (std::size_t f = 0; f < pr.files.size(); ++f) {
      FileReport& fr = pr.files[f];
      if (fr.change != ChangeKind::kModify || !fr.target_path || fr.status != Status::kConflict)
        continue;
      // Later patches of the run with applied hunks on the same file, in order.
      std::vector<std::pair<std::size_t, std::size_t>> later;
      for (std::size_t j = i + 1; j < report.patches.size(); ++j)
        for (std::size_t g = 0; g < report.patches[j].files.size(); ++g) {
          const FileReport& other = report.patches[j].files[g];
          if (other.target_path == fr.target_path &&
              std::any_of(other.hunks.begin(), other.hunks.end(), [](const HunkReport& h) {
                return h.match.status == HunkStatus::kApplied;
              }))
            later.emplace_back(j, g);
        }
      if (later.empty()) continue;
      std::string content;
      try {
        content = ctx.cache.get(*fr.target_path, [&] { return ctx.tree.read(*fr.target_path); })
                      .content();
      } catch (const Error&) {
        continue;
      }
      for (auto it = later.rbegin(); it != later.rend(); ++it)
        content =
            undo_applied(content, patches[it->first].files[it->second].hunks, ctx.options.match);
      FileText before(std::move(content));
      const std::vector<HunkMatch> again =
          match_hunks(before, patches[i].files[f].hunks, ctx.options.match);
      std::vector<Status> statuses;
      std::size_t superseded = 0;
      for (std::size_t h = 0; h < fr.hunks.size() && h < again.size(); ++h) {
        HunkMatch& m = fr.hunks[h].match;
        if (m.status == HunkStatus::kConflict && again[h].status == HunkStatus::kApplied) {
          m = HunkMatch{};
          m.status = HunkStatus::kApplied;
          m.kind = MatchKind::kExact;
          m.presence = Presence::kPresent;
          m.presence_reason = "superseded";
          m.diagnostic = "superseded";
          ++superseded;
        }
        statuses.push_back(from_hunk(m.status));
      }
      if (superseded == 0) continue;
      const PatchReport& by = report.patches[later.front().first];
      append_reason(fr, fmt::format("{} hunk{} superseded: patch {}{} changes these lines again",
                                    superseded, superseded == 1 ? "" : "s", later.front().first + 1,
                                    by.subject ? " (" + *by.subject + ")" : std::string()));
      fr.status = combine(statuses);
      fr.presence = file_presence(fr);
      changed = true;
    }
    if (changed) {
      std::vector<Status> statuses;
      std::vector<Presence> presences;
      for (const FileReport& fr : pr.files) {
        statuses.push_back(fr.status);
        presences.push_back(fr.presence);
      }
      pr.status = combine(statuses);
      pr.presence = combine_presence(presences);
    }
  }
}

}  // namespace sm120check::detail
