// What `sm120check --version` says: the project version and the git commit of the build.
#pragma once

#include <string>

namespace sm120check::cli {

/// The commit the binary was built from (40 hex digits), "" when not known: from git at build
/// time, `git archive`'s cmake/git-commit.txt, or -DSM120CHECK_GIT_COMMIT
/// (cmake/GitVersion.cmake, which generates the definitions of these three).
extern const char* const kBuildCommit;
/// Whether tracked files differed from kBuildCommit when the binary was built (git only).
extern const bool kBuildDirty;
/// Where kBuildCommit came from: "git", "archive", "configure" or "unknown".
extern const char* const kBuildCommitSource;

/// The line --version prints, without its newline: "sm120check 0.1.0 (commit <40 hex>)", with
/// ", with uncommitted changes" before the ")" for a dirty build, or "sm120check 0.1.0 (commit
/// unknown: not built from a git checkout)".
std::string version_line();

}  // namespace sm120check::cli
