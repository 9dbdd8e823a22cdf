// STUB: replaced by the matcher implementation.
#include "sm120check/match.hpp"
namespace sm120check {
FileText::FileText(std::string content) : content_(std::move(content)) {}
FileText::FileText(FileText&&) noexcept = default;
FileText& FileText::operator=(FileText&&) noexcept = default;
FileText::~FileText() = default;
std::string_view to_string(HunkStatus s) {
  return s == HunkStatus::kApplied ? "applied" : s == HunkStatus::kApplicable ? "applicable" : "conflict";
}
std::vector<HunkMatch> match_hunks(const FileText&, const std::vector<Hunk>& hunks, const MatchOptions&) {
  return std::vector<HunkMatch>(hunks.size());
}
std::string whole_image(const std::vector<Hunk>&, Image) { return {}; }
}  // namespace sm120check
