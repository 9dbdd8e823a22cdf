// Rendering of repository facts, `verify --rev` and `log` (see sm120check/git_report.hpp).
#include "sm120check/git_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "sm120check/report.hpp"

namespace sm120check {
namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kWidth = 100;

std::string paint(std::string_view text, Status status, bool color) {
  if (!color) return std::string(text);
  std::string_view sgr = status == Status::kApplied                                    ? "\x1b[32m"
                         : status == Status::kApplicable || status == Status::kPartial ? "\x1b[33m"
                         : status == Status::kUnknown                                  ? "\x1b[35m"
                                                                                       : "\x1b[31m";
  return fmt::format("{}{}\x1b[0m", sgr, text);
}

/// `text` cut to `width` bytes, keeping its end ("...tail") - paths differ at their ends.
std::string fit(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  return "..." + text.substr(text.size() - (width - 3));
}

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string short_id(const std::string& id) { return id.substr(0, 12); }

/// "2024-05-01 12:34:56 +0200".
std::string format_time(std::int64_t time, int offset_minutes) {
  std::time_t local = static_cast<std::time_t>(time + std::int64_t{offset_minutes} * 60);
  std::tm tm{};
  ::gmtime_r(&local, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  int off = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  return fmt::format("{} {}{:02}{:02}", buf, offset_minutes < 0 ? '-' : '+', off / 60, off % 60);
}

/// "commit", "short", "subject", "date" of a commit.
json info_to_json(const CommitInfo& c) {
  json out = json::object();
  out["commit"] = c.id;
  out["short"] = short_id(c.id);
  out["subject"] = sanitize_utf8(c.subject);
  out["date"] = format_time(c.time, c.offset_minutes);
  return out;
}

json commit_to_json(const LogCommit& c) {
  json out = info_to_json(c.info);
  out["status"] = std::string(to_string(c.status));
  return out;
}

/// "ID DATE SUBJECT" for people.
std::string describe(const CommitInfo& c) {
  return short_id(c.id) + " " + format_time(c.time, c.offset_minutes) + " " +
         escape_for_terminal(c.subject);
}

/// "1-5, 7, 9": sorted 1-based indexes with runs joined.
std::string index_ranges(const std::vector<std::size_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(v[i]);
    if (j > i) {  // appended piecewise: GCC 12 warns (-Wrestrict) on "-" + string
      out += '-';
      out += std::to_string(v[j]);
    }
    i = j + 1;
  }
  return out;
}

/// An event's changes for people, one line per file: "PATH: B -> A; hunks 1-3: B -> A", the
/// hunks grouped by their change. None when every change is the event's own status change.
std::vector<std::string> change_lines(const LogEvent& e, bool series) {
  const std::string before(to_string(e.before)), after(to_string(e.after));
  if (std::all_of(e.changes.begin(), e.changes.end(), [&](const LogVerdictChange& c) {
        return c.before == before && c.at.verdict == after;
      }))
    return {};
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < e.changes.size();) {
    std::size_t j = i;  // [i, j): one file
    while (j < e.changes.size() && e.changes[j].at.patch == e.changes[i].at.patch &&
           e.changes[j].at.path == e.changes[i].at.path)
      ++j;
    std::string line = (series ? fmt::format("patch {}: ", e.changes[i].at.patch) : "") +
                       escape_for_terminal(e.changes[i].at.path) + ":";
    std::string sep = " ";
    std::vector<bool> done(j - i, false);
    for (std::size_t k = i; k < j; ++k) {
      if (done[k - i]) continue;
      const LogVerdictChange& c = e.changes[k];
      std::vector<std::size_t> hunks;
      for (std::size_t m = k; m < j; ++m) {
        const LogVerdictChange& o = e.changes[m];
        if (!done[m - i] && (o.at.hunk == 0) == (c.at.hunk == 0) && o.before == c.before &&
            o.at.verdict == c.at.verdict) {
          done[m - i] = true;
          if (o.at.hunk > 0) hunks.push_back(o.at.hunk);
        }
      }
      std::string what =
          hunks.empty() ? ""
                        : (hunks.size() == 1 ? "hunk " : "hunks ") + index_ranges(hunks) + ": ";
      line += sep + what + c.before + " -> " + c.at.verdict;
      sep = "; ";
    }
    lines.push_back(std::move(line));
    i = j;
  }
  return lines;
}

/// "the revert ID" or "the rewrite ID" (an event that took the fix out).
std::string removal(const LogEvent& e) {
  return (e.kind == LogEventKind::kReverted ? "the revert " : "the rewrite ") + short_id(e.info.id);
}

/// Why the fix is or is not in a ref, one clause (JSON "reason", text after "yes: "/"no: ").
std::string ref_reason(const LogRefAnswer& a, const LogResult& r) {
  const std::string_view status = to_string(a.status);
  if (a.applied()) {
    if (a.reverted_by) return "applied there, although it contains " + removal(*a.reverted_by);
    if (a.fix_commit) return "contains the fix commit " + short_id(a.fix_commit->info.id);
    if (r.applied_at_oldest && !r.brought_in_by_oldest)
      return "applied there (the fix predates the range)";
    if (r.brought_in_by_oldest && a.contains && r.first_applied &&
        r.first_applied->info.id == r.oldest.info.id)
      return "contains the fix commit " + short_id(r.oldest.info.id);
    return "applied there, but it contains none of the range's fix commits (cherry-picked?)";
  }
  if (a.fix_commit && a.reverted_by)
    return fmt::format("contains the fix commit {} but also {}; {} there",
                       short_id(a.fix_commit->info.id), removal(*a.reverted_by), status);
  if (a.reverted_by) return fmt::format("contains {}; {} there", removal(*a.reverted_by), status);
  if (a.fix_commit)
    return fmt::format("contains the fix commit {}, but the patches are {} there",
                       short_id(a.fix_commit->info.id), status);
  if (!r.first_ever_applied)
    return fmt::format("no commit of the range applies the fix; {} there", status);
  return fmt::format("does not contain the fix commit; {} there", status);
}

/// An event a ref contains: its commit and kind.
json ref_event_to_json(const std::optional<LogEvent>& e) {
  if (!e) return nullptr;
  json out = info_to_json(e->info);
  out["kind"] = std::string(to_string(e->kind));
  return out;
}

std::size_t worst_index(const std::vector<RevisionReport>& revisions) {
  std::size_t worst = 0;
  for (std::size_t i = 1; i < revisions.size(); ++i)
    if (revisions[i].report.exit_code() > revisions[worst].report.exit_code()) worst = i;
  return worst;
}

}  // namespace

json repository_to_json(const std::optional<RepositoryFacts>& facts) {
  if (!facts) return nullptr;
  json out = json::object();
  out["root"] = sanitize_utf8(facts->root);
  out["head"] = facts->head.empty() ? json(nullptr) : json(facts->head);
  out["branch"] = facts->branch ? json(sanitize_utf8(*facts->branch)) : json(nullptr);
  json dirty = json::array();
  for (const std::string& p : facts->dirty) dirty.push_back(sanitize_utf8(p));
  out["dirty"] = std::move(dirty);  // empty when unknown: dirty_unknown says so (verify/3 keeps
                                     // the field an array)
  out["dirty_unknown"] =
      facts->dirty_unknown.empty() ? json(nullptr) : json(sanitize_utf8(facts->dirty_unknown));
  json not_checked_out = json::array();
  for (const std::string& p : facts->not_checked_out) not_checked_out.push_back(sanitize_utf8(p));
  out["not_checked_out"] = std::move(not_checked_out);
  return out;
}

int revisions_exit_code(const std::vector<RevisionReport>& revisions) {
  return revisions.empty() ? 0 : revisions[worst_index(revisions)].report.exit_code();
}

json revisions_to_json(const std::vector<RevisionReport>& revisions, const std::string& target,
                       const std::optional<RepositoryFacts>& facts) {
  json doc = verify_to_json(revisions[worst_index(revisions)].report);
  doc["target"]["path"] = sanitize_utf8(target);
  doc["repository"] = repository_to_json(facts);
  json list = json::array();
  for (const RevisionReport& r : revisions) {
    json one = verify_to_json(r.report);
    json entry = json::object();
    entry["rev"] = sanitize_utf8(r.rev);
    entry["commit"] = r.commit;
    entry["patches"] = std::move(one["patches"]);
    entry["summary"] = std::move(one["summary"]);
    entry["exit_code"] = r.report.exit_code();
    list.push_back(std::move(entry));
  }
  doc["revisions"] = std::move(list);
  return doc;
}

void render_repository_text(std::ostream& out, const RepositoryFacts& facts, bool /*color*/,
                            bool from_revisions) {
  out << "repository: " << escape_for_terminal(facts.root) << "\n";
  out << "HEAD: " << (facts.head.empty() ? "(unborn)" : short_id(facts.head));
  out << (facts.branch ? " (branch " + escape_for_terminal(*facts.branch) + ")" : " (detached)")
      << "\n";
  if (!facts.dirty_unknown.empty()) {
    out << "uncommitted changes: unknown (" << escape_for_terminal(facts.dirty_unknown) << ")\n";
  } else if (!facts.dirty.empty()) {
    out << (from_revisions ? "uncommitted changes in the work tree (not read: the revisions "
                             "decide this answer):"
                           : "uncommitted changes (these decide the work-tree answer, not HEAD):");
    for (const std::string& p : facts.dirty) out << " " << escape_for_terminal(p);
    out << "\n";
  }
  if (!facts.not_checked_out.empty()) {
    out << (from_revisions
                ? "not checked out in the work tree (skip-worktree, as a sparse checkout leaves "
                  "them; not read: the revisions decide this answer):"
                : "not checked out (skip-worktree, as a sparse checkout leaves them; git calls "
                  "them unchanged): their files read unknown here, 'verify --rev HEAD' judges "
                  "the committed ones:");
    for (const std::string& p : facts.not_checked_out) out << " " << escape_for_terminal(p);
    out << "\n";
  }
}

void render_revisions_text(std::ostream& out, const std::vector<RevisionReport>& revisions,
                           const std::string& target, bool color) {
  out << "target: " << escape_for_terminal(target) << " (read from git, no checkout)\n";
  std::size_t cell = 11;
  for (const RevisionReport& r : revisions)
    cell = std::max(cell, std::min<std::size_t>(escape_for_terminal(r.rev).size() + 1, 16));
  std::size_t label = revisions.size() * cell + 30 > kWidth ? 30 : kWidth - revisions.size() * cell;
  for (const RevisionReport& r : revisions)
    out << "  " << pad(fit(escape_for_terminal(r.rev), cell - 1), cell) << short_id(r.commit)
        << "\n";
  auto rtrim = [](const std::string& line) {
    return line.substr(0, line.find_last_not_of(' ') + 1);
  };
  std::string header(label, ' ');
  for (const RevisionReport& r : revisions)
    header += pad(fit(escape_for_terminal(r.rev), cell - 1), cell);
  out << "\n" << rtrim(header) << "\n";
  auto row = [&](const std::string& left, auto&& status_of) {
    std::string line = pad(fit(left, label - 1), label);
    for (const RevisionReport& r : revisions) {
      std::optional<Status> s = status_of(r.report);
      std::string text = s ? std::string(to_string(*s)) : "-";
      line += paint(text, s.value_or(Status::kUnknown), color && s) +
              std::string(cell > text.size() ? cell - text.size() : 1, ' ');
    }
    out << rtrim(line) << "\n";
  };
  // The answer `verify` is run for, "is the fix in?", per revision (PatchReport::presence),
  // painted as the status that reads the same.
  auto presence_row = [&](std::size_t i) {
    std::string line = pad("  fix:", label);
    for (const RevisionReport& r : revisions) {
      const bool known = i < r.report.patches.size();
      const Presence pr = known ? r.report.patches[i].presence : Presence::kUnknown;
      const std::string text = known ? std::string(to_string(pr)) : "-";
      const Status look = pr == Presence::kPresent  ? Status::kApplied
                          : pr == Presence::kAbsent ? Status::kApplicable
                          : pr == Presence::kPartial ? Status::kPartial
                                                     : Status::kUnknown;
      line += paint(text, look, color && known) +
              std::string(cell > text.size() ? cell - text.size() : 1, ' ');
    }
    out << rtrim(line) << "\n";
  };
  const VerifyReport& first = revisions.front().report;
  for (std::size_t i = 0; i < first.patches.size(); ++i) {
    const PatchReport& p = first.patches[i];
    std::string title = fmt::format("patch {}/{}: {}", i + 1, first.patches.size(),
                                    escape_for_terminal(p.subject.value_or(p.source)));
    row(title, [&](const VerifyReport& r) -> std::optional<Status> {
      if (i >= r.patches.size()) return std::nullopt;
      return r.patches[i].status;
    });
    presence_row(i);
    for (std::size_t j = 0; j < p.files.size(); ++j) {
      const FileReport& f = p.files[j];
      std::string path = f.target_path               ? *f.target_path
                         : f.new_path == "/dev/null" ? f.old_path
                                                     : f.new_path;
      row("  " + escape_for_terminal(path), [&](const VerifyReport& r) -> std::optional<Status> {
        if (i >= r.patches.size() || j >= r.patches[i].files.size()) return std::nullopt;
        return r.patches[i].files[j].status;
      });
      for (std::size_t k = 0; k < f.hunks.size(); ++k) {
        const HunkReport& h = f.hunks[k];
        std::string left = fmt::format("    hunk {} @@ -{},{} +{},{} @@", h.index, h.old_start,
                                       h.old_lines, h.new_start, h.new_lines);
        row(left, [&](const VerifyReport& r) -> std::optional<Status> {
          if (i >= r.patches.size() || j >= r.patches[i].files.size() ||
              k >= r.patches[i].files[j].hunks.size())
            return std::nullopt;
          return from_hunk(r.patches[i].files[j].hunks[k].match.status);
        });
      }
    }
    // The same files are left out at every revision (matched at the first one's strip level).
    for (const std::string& path : p.excluded)
      out << "  - " << escape_for_terminal(path) << "  left out (--include/--exclude)\n";
    if (!p.excluded.empty() && p.files.empty())
      out << "  unknown: --include/--exclude left out every file it changes; nothing of it was "
             "checked\n";
  }
  bool notes = false;
  for (const RevisionReport& r : revisions)
    for (const PatchReport& p : r.report.patches) {
      std::string why = p.error;
      for (const FileReport& f : p.files) {
        if (f.reason.empty()) continue;
        if (!notes) out << "\nreasons:\n";
        notes = true;
        out << "  " << escape_for_terminal(r.rev) << ": "
            << escape_for_terminal(f.target_path.value_or(f.new_path)) << ": "
            << escape_for_terminal(f.reason) << "\n";
      }
      if (!why.empty()) {
        if (!notes) out << "\nreasons:\n";
        notes = true;
        out << "  " << escape_for_terminal(r.rev) << ": " << escape_for_terminal(why) << "\n";
      }
    }
  std::string codes = pad("exit code", label);
  for (const RevisionReport& r : revisions)
    codes += pad(std::to_string(r.report.exit_code()), cell);
  out << "\n"
      << rtrim(codes) << "\nsummary: " << revisions.size() << " revision"
      << (revisions.size() == 1 ? "" : "s") << "  -> exit " << revisions_exit_code(revisions)
      << "\n";
}

json log_to_json(const LogResult& r, const std::string& target) {
  json doc = json::object();
  doc["schema"] = kLogSchema;
  doc["tool"] = tool_to_json();
  doc["target"] = {{"path", sanitize_utf8(target)}, {"root", sanitize_utf8(r.root)}};
  doc["range"] = sanitize_utf8(r.range);
  doc["commits"] = r.commits;
  doc["evaluated"] = r.evaluated;
  doc["verified"] = r.verified;
  doc["tip"] = commit_to_json(r.tip);
  doc["oldest"] = commit_to_json(r.oldest);
  doc["monotone"] = r.monotone;
  doc["applied_at_oldest"] = r.applied_at_oldest;
  doc["brought_in_by_oldest"] = r.brought_in_by_oldest;
  doc["shallow"] = r.oldest.info.parent_missing;
  doc["first_applied"] = r.first_applied ? commit_to_json(*r.first_applied) : json(nullptr);
  doc["first_ever_applied"] =
      r.first_ever_applied ? commit_to_json(*r.first_ever_applied) : json(nullptr);
  json events = json::array();
  for (const LogEvent& e : r.events) {
    json one = json::object();
    one["kind"] = std::string(to_string(e.kind));
    one.update(info_to_json(e.info));
    one["status_before"] = std::string(to_string(e.before));
    one["status_after"] = std::string(to_string(e.after));
    json changes = json::array();
    for (const LogVerdictChange& c : e.changes) {
      json change = json::object();
      change["patch"] = c.at.patch;
      change["path"] = sanitize_utf8(c.at.path);
      change["hunk"] = c.at.hunk == 0 ? json(nullptr) : json(c.at.hunk);
      change["before"] = c.before;
      change["after"] = c.at.verdict;
      changes.push_back(std::move(change));
    }
    one["changes"] = std::move(changes);
    events.push_back(std::move(one));
  }
  doc["events"] = std::move(events);
  json in = json::array();
  for (const LogRefAnswer& a : r.in) {
    json one = json::object();
    one["ref"] = sanitize_utf8(a.ref);
    one["commit"] = a.commit;
    one["applied"] = a.applied();
    one["status"] = std::string(to_string(a.status));
    one["contains"] = a.contains;
    one["fix_commit"] = ref_event_to_json(a.fix_commit);
    one["reverted_by"] = ref_event_to_json(a.reverted_by);
    one["reason"] = sanitize_utf8(ref_reason(a, r));
    in.push_back(std::move(one));
  }
  doc["in"] = std::move(in);
  doc["exit_code"] = r.exit_code();
  return doc;
}

void render_log_text(std::ostream& out, const LogResult& r, const std::string& target, bool color) {
  auto status = [&](Status s) { return paint(to_string(s), s, color); };
  out << "target: " << escape_for_terminal(target) << " (repository " << escape_for_terminal(r.root)
      << ")\n";
  out << "range: " << escape_for_terminal(r.range) << ": " << r.commits << " first-parent commits, "
      << r.evaluated << " evaluated (where the touched files change), " << r.verified
      << " file states verified\n";
  if (r.oldest.info.parent_missing)
    out << "shallow: the history before " << short_id(r.oldest.info.id)
        << " is not in this repository (a shallow clone): older commits are not known\n";
  out << "tip: " << short_id(r.tip.info.id) << " " << status(r.tip.status) << "\n";
  if (!r.first_ever_applied) {
    out << "never applied in the range (oldest commit " << short_id(r.oldest.info.id) << ": "
        << status(r.oldest.status) << ")\n";
  } else if (r.first_applied) {
    const bool since_oldest = r.applied_at_oldest && !r.brought_in_by_oldest &&
                              r.first_applied->info.id == r.oldest.info.id;
    out << (!since_oldest                     ? "fix brought in by: "
            : r.oldest.info.parent_missing ? "applied since the oldest commit (the history "
                                               "before it is not here): "
                                             : "applied before the range (the fix predates "
                                               "it); oldest commit: ")
        << describe(r.first_applied->info) << "\n";
    if (r.first_ever_applied->info.id != r.first_applied->info.id)
      out << "first applied by: " << describe(r.first_ever_applied->info) << "\n";
  } else {
    out << "first applied by: " << describe(r.first_ever_applied->info) << "\n";
    const LogEvent* last = nullptr;
    for (const LogEvent& e : r.events)
      if (e.kind == LogEventKind::kReverted || e.kind == LogEventKind::kRewritten) last = &e;
    if (last != nullptr)
      out << "not applied at the tip: " << to_string(last->kind) << " by " << describe(last->info)
          << "\n";
  }
  if (r.first_ever_applied)
    out << (r.monotone ? "history: monotone (applied from one commit on, never before; exact)\n"
                       : "history: NOT monotone (applied, then not: reverted or rewritten; the "
                         "events below say when)\n");
  if (!r.events.empty()) {
    constexpr std::size_t kHead = 5, kTail = 15;
    bool series = false;
    for (const LogEvent& e : r.events)
      for (const LogVerdictChange& c : e.changes) series = series || c.at.patch > 1;
    out << "events:\n";
    for (std::size_t i = 0; i < r.events.size(); ++i) {
      if (r.events.size() > kHead + kTail && i == kHead) {
        out << "  ... " << r.events.size() - kHead - kTail
            << " more events (all of them in --format json)\n";
        i = r.events.size() - kTail;
      }
      const LogEvent& e = r.events[i];
      out << "  " << short_id(e.info.id) << " " << format_time(e.info.time, e.info.offset_minutes)
          << " " << pad(std::string(to_string(e.kind)), 9) << " " << status(e.before) << " -> "
          << status(e.after) << "  " << escape_for_terminal(e.info.subject) << "\n";
      for (const std::string& line : change_lines(e, series)) out << "      " << line << "\n";
    }
  }
  for (const LogRefAnswer& a : r.in)
    out << "in " << escape_for_terminal(a.ref) << " (" << short_id(a.commit)
        << "): " << (a.applied() ? "yes" : "no") << ": " << escape_for_terminal(ref_reason(a, r))
        << "\n";
  out << "-> exit " << r.exit_code() << "\n";
}

}  // namespace sm120check
