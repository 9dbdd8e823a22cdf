// Status names, combination rules and exit codes (see verify.hpp).
#include <algorithm>

#include "sm120check/verify.hpp"

namespace sm120check {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::kApplied:
      return "applied";
    case Status::kApplicable:
      return "applicable";
    case Status::kPartial:
      return "partial";
    case Status::kConflict:
      return "conflict";
    case Status::kUnknown:
      return "unknown";
    case Status::kError:
      return "error";
    case Status::kSkipped:
      return "skipped";
  }
  return "error";
}

Status from_hunk(HunkStatus status) {
  switch (status) {
    case HunkStatus::kApplied:
      return Status::kApplied;
    case HunkStatus::kApplicable:
      return Status::kApplicable;
    case HunkStatus::kConflict:
      return Status::kConflict;
    case HunkStatus::kUnknown:
      return Status::kUnknown;
  }
  return Status::kConflict;
}

Status combine(const std::vector<Status>& parts) {
  auto has = [&](Status s) { return std::find(parts.begin(), parts.end(), s) != parts.end(); };
  if (has(Status::kError)) return Status::kError;
  if (has(Status::kConflict)) return Status::kConflict;
  if (has(Status::kUnknown)) return Status::kUnknown;
  bool all_applied =
      std::all_of(parts.begin(), parts.end(), [](Status s) { return s == Status::kApplied; });
  if (all_applied) return Status::kApplied;
  bool all_applicable =
      std::all_of(parts.begin(), parts.end(), [](Status s) { return s == Status::kApplicable; });
  if (all_applicable) return Status::kApplicable;
  return Status::kPartial;
}

Presence combine_presence(const std::vector<Presence>& parts) {
  auto has = [&](Presence p) { return std::find(parts.begin(), parts.end(), p) != parts.end(); };
  if (has(Presence::kUnknown)) return Presence::kUnknown;
  const bool any_present = has(Presence::kPresent) || has(Presence::kPartial);
  const bool any_absent = has(Presence::kAbsent) || has(Presence::kPartial);
  if (any_present && any_absent) return Presence::kPartial;
  return any_absent ? Presence::kAbsent : Presence::kPresent;
}

Presence file_presence(const FileReport& file) {
  switch (file.status) {
    case Status::kApplied:
      return Presence::kPresent;
    case Status::kApplicable:
      return Presence::kAbsent;
    case Status::kPartial:
      return Presence::kPartial;
    case Status::kConflict:
    case Status::kUnknown: {
      if (file.hunks.empty()) return Presence::kUnknown;
      std::vector<Presence> parts;
      for (const HunkReport& h : file.hunks) parts.push_back(h.match.presence);
      return combine_presence(parts);
    }
    case Status::kError:
    case Status::kSkipped:
      return Presence::kUnknown;
  }
  return Presence::kUnknown;
}

std::array<std::size_t, kPresenceCount> VerifyReport::presence_summary() const {
  std::array<std::size_t, kPresenceCount> counts{};
  for (const PatchReport& p : patches) ++counts[static_cast<std::size_t>(p.presence)];
  return counts;
}

Summary VerifyReport::summary() const {
  Summary counts{};
  for (const PatchReport& p : patches) ++counts[static_cast<std::size_t>(p.status)];
  return counts;
}

int VerifyReport::exit_code() const {
  Summary s = summary();
  auto n = [&](Status st) { return s[static_cast<std::size_t>(st)]; };
  if (n(Status::kError) > 0) return 3;
  if (n(Status::kPartial) + n(Status::kConflict) + n(Status::kUnknown) > 0) return 2;
  if (n(Status::kApplicable) > 0) return 1;
  return 0;
}

std::optional<unsigned> VerifyReport::common_strip() const {
  if (patches.empty()) return std::nullopt;
  unsigned first = patches.front().strip;
  for (const PatchReport& p : patches)
    if (p.strip != first) return std::nullopt;
  return first;
}

}  // namespace sm120check
