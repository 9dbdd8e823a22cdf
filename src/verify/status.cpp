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
