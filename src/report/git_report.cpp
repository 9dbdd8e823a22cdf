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

json commit_to_json(const LogCommit& c) {
  json out = json::object();
  out["commit"] = c.info.id;
  out["subject"] = sanitize_utf8(c.info.subject);
  out["date"] = format_time(c.info.time, c.info.offset_minutes);
  out["status"] = std::string(to_string(c.status));
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
  out["dirty"] = std::move(dirty);
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

void render_repository_text(std::ostream& out, const RepositoryFacts& facts, bool /*color*/) {
  out << "repository: " << escape_for_terminal(facts.root) << "\n";
  out << "HEAD: " << (facts.head.empty() ? "(unborn)" : short_id(facts.head));
  out << (facts.branch ? " (branch " + escape_for_terminal(*facts.branch) + ")" : " (detached)")
      << "\n";
  if (!facts.dirty.empty()) {
    out << "uncommitted changes (these decide the work-tree answer, not HEAD):";
    for (const std::string& p : facts.dirty) out << " " << escape_for_terminal(p);
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
  const VerifyReport& first = revisions.front().report;
  for (std::size_t i = 0; i < first.patches.size(); ++i) {
    const PatchReport& p = first.patches[i];
    std::string title = fmt::format("patch {}/{}: {}", i + 1, first.patches.size(),
                                    escape_for_terminal(p.subject.value_or(p.source)));
    row(title, [&](const VerifyReport& r) -> std::optional<Status> {
      if (i >= r.patches.size()) return std::nullopt;
      return r.patches[i].status;
    });
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
  doc["tool"] = {{"name", "sm120check"}, {"version", SM120CHECK_VERSION}};
  doc["target"] = {{"path", sanitize_utf8(target)}, {"root", sanitize_utf8(r.root)}};
  doc["range"] = sanitize_utf8(r.range);
  doc["commits"] = r.commits;
  doc["evaluated"] = r.evaluated;
  doc["verified"] = r.verified;
  doc["tip"] = commit_to_json(r.tip);
  doc["monotone"] = r.monotone;
  doc["applied_at_oldest"] = r.applied_at_oldest;
  doc["first_applied"] = r.first_applied ? commit_to_json(*r.first_applied) : json(nullptr);
  json in = json::array();
  for (const LogRefAnswer& a : r.in) {
    json one = json::object();
    one["ref"] = sanitize_utf8(a.ref);
    one["commit"] = a.commit;
    one["contains"] = a.contains;
    one["status"] = std::string(to_string(a.status));
    in.push_back(std::move(one));
  }
  doc["in"] = std::move(in);
  doc["exit_code"] = r.exit_code();
  return doc;
}

void render_log_text(std::ostream& out, const LogResult& r, const std::string& target, bool color) {
  out << "target: " << escape_for_terminal(target) << " (repository " << escape_for_terminal(r.root)
      << ")\n";
  out << "range: " << escape_for_terminal(r.range) << ": " << r.commits << " first-parent commits, "
      << r.evaluated << " looked at, " << r.verified << " distinct file states verified\n";
  out << "tip: " << short_id(r.tip.info.id) << " "
      << paint(to_string(r.tip.status), r.tip.status, color) << "\n";
  if (r.first_applied) {
    const LogCommit& c = *r.first_applied;
    out << (r.applied_at_oldest ? "applied since the oldest commit of the range: "
                                : "fix brought in by: ")
        << short_id(c.info.id) << " " << format_time(c.info.time, c.info.offset_minutes) << " "
        << escape_for_terminal(c.info.subject) << "\n";
    out << (r.monotone ? "history: monotone (bisection; samples agree)\n"
                       : "history: NOT monotone (applied, then not, then applied again: a fix "
                         "reverted and re-applied); the commit above is where it stays applied "
                         "(exact scan)\n");
  } else {
    out << "fix not applied at the tip\n";
  }
  for (const LogRefAnswer& a : r.in)
    out << "in " << escape_for_terminal(a.ref) << " (" << short_id(a.commit)
        << "): " << (a.contains ? "yes" : "no") << ", status there "
        << paint(to_string(a.status), a.status, color) << "\n";
  out << "-> exit " << r.exit_code() << "\n";
}

}  // namespace sm120check
