// Rendering of the git parts of a run: repository facts, `verify --rev` (one column or JSON
// entry per revision) and `log` (the "sm120check.log/1" document). See docs/json.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sm120check/git.hpp"

namespace sm120check {

/// Schema of the `log` document.
inline constexpr const char* kLogSchema = "sm120check.log/1";

/// The "repository" value: an object, or null when the target is not in a repository.
nlohmann::ordered_json repository_to_json(const std::optional<RepositoryFacts>& facts);

/// The "sm120check.verify/2" document of a `--rev` run: the top-level fields are those of the
/// worst revision (the first with the highest exit code), target.path is `target`, and
/// "revisions" lists every revision. `revisions` must not be empty.
nlohmann::ordered_json revisions_to_json(const std::vector<RevisionReport>& revisions,
                                         const std::string& target,
                                         const std::optional<RepositoryFacts>& facts);

/// The exit code of a `--rev` run: the highest over revisions.
int revisions_exit_code(const std::vector<RevisionReport>& revisions);

/// "repository: ROOT" and "HEAD: ..." lines, and the dirty and not-checked-out paths, for the
/// text report. With `from_revisions` (a `--rev` or `log` run, which reads revisions only), the
/// paths are told as the work tree's, which the answer did not read; otherwise as what decided
/// the work-tree answer.
void render_repository_text(std::ostream& out, const RepositoryFacts& facts, bool color,
                            bool from_revisions = false);

/// A table for people: rows per patch, file and hunk, one status column per revision (labels
/// shortened to fit 100 columns), then the reasons and one summary row.
void render_revisions_text(std::ostream& out, const std::vector<RevisionReport>& revisions,
                           const std::string& target, bool color);

/// The "sm120check.log/1" document.
nlohmann::ordered_json log_to_json(const LogResult& result, const std::string& target);

/// The `log` result for people.
void render_log_text(std::ostream& out, const LogResult& result, const std::string& target,
                     bool color);

}  // namespace sm120check
