// Shared test helpers: temporary folders, file writing, running the built binary.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/match.hpp"

namespace sm120check::test {

/// A fresh temporary directory, removed (recursively) when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// path() / rel, as a string.
  std::string operator/(std::string_view rel) const { return (path_ / rel).string(); }

 private:
  std::filesystem::path path_;
};

/// Writes `content` to `path` byte-exactly, creating parent directories.
void write_file(const std::filesystem::path& path, std::string_view content);
/// Reads `path` byte-exactly. Fails the test (and returns "") if it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// Result of running a command.
struct RunResult {
  int exit_code = -1;      ///< exit status, or 128 + signal number
  std::string out;         ///< standard output
  std::string err;         ///< standard error
  bool timed_out = false;  ///< killed (SIGKILL) for running past its time limit
};

/// Everything below `root` that a run could change, one entry per path relative to it (the
/// root itself is ""), symlinks not followed: type and permission bits, size, modification and
/// status-change times (nanoseconds), and a regular file's bytes or a symlink's target. FIFOs,
/// devices and sockets are never opened. Equal before and after a run: it changed nothing.
std::map<std::string, std::string> tree_state(const std::filesystem::path& root);

/// Runs the built sm120check binary with `args` (no shell), feeding `stdin_data` on standard
/// input, with NO_COLOR=1 unless `env` overrides. `env` entries are "NAME=value" added to the
/// environment. For `verify`, `log`, `scan` and `apply --dry-run` whose last argument is a directory
/// (TARGET), it also expects tree_state(TARGET) to be the same after the run as before: every
/// end-to-end test checks that these commands change nothing.
RunResult run_sm120check(const std::vector<std::string>& args, std::string_view stdin_data = {},
                         const std::vector<std::string>& env = {});

/// run_sm120check() that kills the process (SIGKILL) once it has run `seconds`: exit code
/// 137 and RunResult::timed_out then (a hang fails the test instead of the suite).
RunResult run_sm120check_within(double seconds, const std::vector<std::string>& args,
                                std::string_view stdin_data = {});

/// run_sm120check_within(`seconds`) that also expects tree_state(`root`) to be the same after
/// the run as before it (a test failure names the first entry that changed).
RunResult run_leaving_unchanged(const std::filesystem::path& root,
                                const std::vector<std::string>& args,
                                std::string_view stdin_data = {}, double seconds = 120);

/// Makes a chain of `depth` nested folders named `name` below existing folder `root`
/// (root/name/name/...), through descriptors (its paths may be longer than PATH_MAX), and
/// writes `files` (relative paths, folders made as needed) in its deepest folder.
void make_deep_chain(const std::filesystem::path& root, const std::string& name, std::size_t depth,
                     const std::map<std::string, std::string>& files = {});

/// Removes everything below `root` (and `root`) through descriptors, at any depth (TempDir's
/// own removal goes by paths, which stop at PATH_MAX).
void remove_deep(const std::filesystem::path& root);

/// Runs `command` through /bin/sh -c in `cwd`; returns its exit code and output.
RunResult run_shell(const std::string& command, const std::filesystem::path& cwd = {});

/// Creates a git repository at `dir` with HOME isolated, user name/email set, and commits
/// everything in it with message "init". Returns false (with a test failure) on error.
bool git_init_commit(const std::filesystem::path& dir);

/// The match of the first hunk of `hunk` (a unified-diff hunk text, "@@ ..." on) against
/// `file`, as the file patch of `name` ("--- a/NAME" / "+++ b/NAME"); default match options.
HunkMatch match_one_hunk(const std::string& file, std::string_view hunk, std::string_view name);

}  // namespace sm120check::test
