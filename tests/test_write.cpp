// Writing apply's results: atomic replacement, all or nothing, no symlink followed, kill safety.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/write.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::TempDir;
using test::write_file;

FileChange write_change(std::string path, std::string content,
                        std::optional<std::uint32_t> mode = std::nullopt) {
  FileChange c;
  c.path = std::move(path);
  c.content = std::move(content);
  c.mode = mode;
  return c;
}

FileChange delete_change(std::string path) {
  FileChange c;
  c.kind = FileChange::Kind::kDelete;
  c.path = std::move(path);
  return c;
}

/// Permission bits of `path` (lstat), or -1 when it does not exist.
int perms(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

bool is_symlink(const std::string& path) { return fs::is_symlink(fs::symlink_status(path)); }

/// Names under `dir` (recursively) that look like write_changes() temporaries.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".sm120check-") != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

/// umask 022 for the test's life: new files 0644 / 0755.
class Umask022 {
 public:
  Umask022() : old_(::umask(022)) {}
  ~Umask022() { ::umask(old_); }

 private:
  mode_t old_;
};

/// The message of the Error write_changes() throws, or "" (a test failure) when none.
std::string refusal(const std::string& root, const std::vector<FileChange>& changes,
                    const WriteOptions& options = {}) {
  try {
    write_changes(root, changes, options);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return {};
}

TEST(Write, NewFile) {
  Umask022 umask;
  TempDir dir;
  WriteResult r = write_changes(dir.path(), {write_change("f.py", "x = 1\n")}, {});
  EXPECT_EQ(read_file(dir / "f.py"), "x = 1\n");
  EXPECT_EQ(perms(dir / "f.py"), 0644);
  EXPECT_EQ(r.written, std::vector<std::string>{"f.py"});
  EXPECT_TRUE(r.deleted.empty());
  EXPECT_TRUE(r.backups.empty());
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

TEST(Write, NewFileInNewFolders) {
  Umask022 umask;
  TempDir dir;
  WriteResult r =
      write_changes(dir.path(), {write_change("a/b/./c.sh", "#!/bin/sh\n", kModeExecutable)}, {});
  EXPECT_EQ(read_file(dir / "a/b/c.sh"), "#!/bin/sh\n");
  EXPECT_EQ(perms(dir / "a/b/c.sh"), 0755);
  EXPECT_TRUE(fs::is_directory(dir / "a/b"));
  EXPECT_EQ(r.written, std::vector<std::string>{"a/b/c.sh"});
}

TEST(Write, OverwriteKeepsMode) {
  TempDir dir;
  write_file(dir / "run.sh", "old\n");
  write_file(dir / "secret", "old\n");
  fs::permissions(dir / "run.sh", fs::perms(0755));
  fs::permissions(dir / "secret", fs::perms(0600));
  write_changes(dir.path(), {write_change("run.sh", "new\n"), write_change("secret", "new\n")}, {});
  EXPECT_EQ(read_file(dir / "run.sh"), "new\n");
  EXPECT_EQ(perms(dir / "run.sh"), 0755);
  EXPECT_EQ(read_file(dir / "secret"), "new\n");
  EXPECT_EQ(perms(dir / "secret"), 0600);
}

TEST(Write, ModeChange) {
  TempDir dir;
  write_file(dir / "a", "a\n");
  write_file(dir / "b", "b\n");
  fs::permissions(dir / "a", fs::perms(0644));
  fs::permissions(dir / "b", fs::perms(0755));
  // Same bytes, new mode: still written.
  WriteResult r = write_changes(
      dir.path(),
      {write_change("a", "a\n", kModeExecutable), write_change("b", "b\n", kModeRegular)}, {});
  EXPECT_EQ(perms(dir / "a"), 0755);
  EXPECT_EQ(perms(dir / "b"), 0644);
  EXPECT_EQ(r.written, (std::vector<std::string>{"a", "b"}));
}

TEST(Write, Delete) {
  TempDir dir;
  write_file(dir / "d/gone.py", "bye\n");
  WriteResult r = write_changes(dir.path(), {delete_change("d/gone.py")}, {});
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "d/gone.py")));
  EXPECT_EQ(r.deleted, std::vector<std::string>{"d/gone.py"});
  // Deleting what is not there is done already.
  r = write_changes(dir.path(), {delete_change("d/gone.py"), delete_change("x/y")}, {});
  EXPECT_TRUE(r.deleted.empty());
}

TEST(Write, BackupOfChangedAndDeletedFiles) {
  Umask022 umask;
  TempDir dir;
  write_file(dir / "changed", "old bytes\n");
  write_file(dir / "gone", "gone bytes\n");
  fs::permissions(dir / "changed", fs::perms(0750));
  WriteOptions options;
  options.backup = true;
  WriteResult r = write_changes(dir.path(),
                                {write_change("changed", "new bytes\n"), delete_change("gone"),
                                 write_change("fresh", "fresh\n")},
                                options);
  EXPECT_EQ(read_file(dir / "changed"), "new bytes\n");
  EXPECT_EQ(read_file(dir / "changed.orig"), "old bytes\n");
  EXPECT_EQ(perms(dir / "changed.orig"), 0750);
  EXPECT_EQ(perms(dir / "changed"), 0750);
  EXPECT_FALSE(fs::exists(dir / "gone"));
  EXPECT_EQ(read_file(dir / "gone.orig"), "gone bytes\n");
  EXPECT_FALSE(fs::exists(dir / "fresh.orig"));
  EXPECT_EQ(r.backups, (std::vector<std::string>{"changed.orig", "gone.orig"}));
  EXPECT_EQ(r.written, (std::vector<std::string>{"changed", "fresh"}));
  EXPECT_EQ(r.deleted, std::vector<std::string>{"gone"});
  EXPECT_TRUE(temporaries(dir.path()).empty());

  // A rerun finds the work done and keeps the backups of the old bytes.
  r = write_changes(dir.path(),
                    {write_change("changed", "new bytes\n"), delete_change("gone"),
                     write_change("fresh", "fresh\n")},
                    options);
  EXPECT_TRUE(r.written.empty());
  EXPECT_TRUE(r.backups.empty());
  EXPECT_EQ(read_file(dir / "changed.orig"), "old bytes\n");
}

TEST(Write, SymlinkTargetRefused) {
  TempDir dir;
  write_file(dir / "real.py", "real\n");
  fs::create_symlink("real.py", dir / "link.py");
  const std::string what = refusal(dir.path(), {write_change("link.py", "new\n")});
  EXPECT_NE(what.find("link.py"), std::string::npos) << what;
  EXPECT_NE(what.find("symlink"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  EXPECT_EQ(read_file(dir / "real.py"), "real\n");
  EXPECT_TRUE(is_symlink(dir / "link.py"));
  // Also when it names an executable mode.
  refusal(dir.path(), {write_change("link.py", "new\n", kModeExecutable)});
  EXPECT_EQ(read_file(dir / "real.py"), "real\n");
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

TEST(Write, SymlinkedParentFolderRefused) {
  TempDir dir;
  TempDir outside;
  write_file(dir / "real/f.py", "inside\n");
  write_file(outside / "f.py", "outside\n");
  fs::create_directories(dir / "a");
  fs::create_directory_symlink(dir / "real", dir / "in");       // stays inside the root
  fs::create_directory_symlink(outside.path(), dir / "a/out");  // leaves it
  for (const std::string path : {"in/f.py", "a/out/f.py", "in/new/g.py", "a/out/new.py"}) {
    const std::string what = refusal(dir.path(), {write_change(path, "x\n")});
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("symlink"), std::string::npos) << what;
  }
  EXPECT_NE(refusal(dir.path(), {delete_change("a/out/f.py")}).find("symlink"), std::string::npos);
  EXPECT_EQ(read_file(dir / "real/f.py"), "inside\n");
  EXPECT_EQ(read_file(outside / "f.py"), "outside\n");
  EXPECT_FALSE(fs::exists(dir / "real/new"));
  EXPECT_FALSE(fs::exists(outside / "new.py"));
}

TEST(Write, PathsOutsideTheRootRefused) {
  TempDir parent;
  const std::string root = parent / "root";
  fs::create_directories(root);
  for (const std::string path : {"../x", "/abs", "", "a/../../x", "a/../x", ".", "a/.."}) {
    const std::string what = refusal(root, {write_change(path, "x\n")});
    EXPECT_NE(what.find("not a relative path inside the target"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(parent / "x"));
  EXPECT_TRUE(fs::is_empty(root));
}

TEST(Write, ConflictingChangesRefused) {
  TempDir dir;
  EXPECT_NE(
      refusal(dir.path(), {write_change("f", "1"), write_change("./f", "2")}).find("two changes"),
      std::string::npos);
  EXPECT_NE(refusal(dir.path(), {write_change("a", "1"), write_change("a/b", "2")})
                .find("lies below 'a'"),
            std::string::npos);
  WriteOptions backup;
  backup.backup = true;
  EXPECT_NE(refusal(dir.path(), {write_change("f", "1"), write_change("f.orig", "2")}, backup)
                .find("backup"),
            std::string::npos);
  write_file(dir / "file", "x");
  EXPECT_NE(refusal(dir.path(), {write_change("file/g", "1")}).find("'file' is not a folder"),
            std::string::npos);
  fs::create_directories(dir / "folder");
  EXPECT_NE(
      refusal(dir.path(), {write_change("folder", "1")}).find("is a folder; refusing to replace"),
      std::string::npos);
  EXPECT_NE(refusal(dir.path(), {delete_change("folder")}).find("is a folder; refusing to delete"),
            std::string::npos);
  EXPECT_NE(refusal(dir.path(), {write_change("m", "1", kModeGitlink)}).find("mode 160000"),
            std::string::npos);
  EXPECT_EQ(read_file(dir / "file"), "x");
  EXPECT_EQ(temporaries(dir.path()).size(), 0u);
}

TEST(Write, SymlinkModeWritesSymlink) {
  TempDir dir;
  write_file(dir / "was_file", "target\n");
  fs::create_symlink("old", dir / "was_link");
  WriteResult r = write_changes(dir.path(),
                                {write_change("was_file", "lib/x.so", kModeSymlink),
                                 write_change("was_link", "new", kModeSymlink),
                                 write_change("d/fresh", "../was_link", kModeSymlink)},
                                {});
  ASSERT_TRUE(is_symlink(dir / "was_file"));
  EXPECT_EQ(fs::read_symlink(dir / "was_file"), "lib/x.so");
  ASSERT_TRUE(is_symlink(dir / "was_link"));
  EXPECT_EQ(fs::read_symlink(dir / "was_link"), "new");
  ASSERT_TRUE(is_symlink(dir / "d/fresh"));
  EXPECT_EQ(fs::read_symlink(dir / "d/fresh"), "../was_link");
  EXPECT_EQ(r.written.size(), 3u);
  // Same target again: done already.
  r = write_changes(dir.path(), {write_change("was_link", "new", kModeSymlink)}, {});
  EXPECT_TRUE(r.written.empty());
  // A symlink may be deleted (the link, never what it points to).
  write_file(dir / "kept", "kept\n");
  fs::create_symlink("kept", dir / "to_kept");
  write_changes(dir.path(), {delete_change("to_kept")}, {});
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "to_kept")));
  EXPECT_EQ(read_file(dir / "kept"), "kept\n");
}

// Fault injection: a hook that throws at its n-th call of one step.
std::string g_throw_step;
int g_throw_at = 0;
int g_calls = 0;

void throw_at_step(std::string_view step, const std::string& path) {
  if (step == g_throw_step && ++g_calls == g_throw_at)
    throw std::runtime_error("injected failure at " + path);
}

/// Clears the hook when the test ends, however it ends.
struct HookGuard {
  ~HookGuard() { detail::set_write_fault_hook(nullptr); }
};

TEST(Write, FailureInTheMiddleWritesNothing) {
  TempDir dir;
  write_file(dir / "a", "old a\n");
  write_file(dir / "b", "old b\n");
  write_file(dir / "c", "old c\n");
  const std::vector<FileChange> changes = {write_change("a", "new a\n"),
                                           write_change("new/dir/n", "n\n"),
                                           write_change("b", "new b\n"), delete_change("c")};
  for (const bool backup : {false, true}) {
    HookGuard guard;
    g_throw_step = "temp-written";
    g_throw_at = 2;
    g_calls = 0;
    detail::set_write_fault_hook(&throw_at_step);
    WriteOptions options;
    options.backup = backup;
    EXPECT_THROW(write_changes(dir.path(), changes, options), std::runtime_error);
    EXPECT_EQ(read_file(dir / "a"), "old a\n");
    EXPECT_EQ(read_file(dir / "b"), "old b\n");
    EXPECT_EQ(read_file(dir / "c"), "old c\n");
    EXPECT_FALSE(fs::exists(dir / "new")) << "folders made are removed";
    EXPECT_FALSE(fs::exists(dir / "a.orig"));
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

TEST(Write, FailureDuringRenamesLeavesWholeFilesAndNoTemporaries) {
  TempDir dir;
  write_file(dir / "a", "old a\n");
  write_file(dir / "b", "old b\n");
  HookGuard guard;
  g_throw_step = "renamed";
  g_throw_at = 1;
  g_calls = 0;
  detail::set_write_fault_hook(&throw_at_step);
  EXPECT_THROW(
      write_changes(dir.path(), {write_change("a", "new a\n"), write_change("b", "new b\n")}, {}),
      std::runtime_error);
  EXPECT_EQ(read_file(dir / "a"), "new a\n");
  EXPECT_EQ(read_file(dir / "b"), "old b\n");
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

TEST(Write, ReadOnlyFolderRefusedBeforeAnyWrite) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write in a read-only folder";
  TempDir dir;
  write_file(dir / "w/a", "old\n");
  write_file(dir / "ro/b", "old\n");
  fs::permissions(dir / "ro", fs::perms(0555));
  const std::string what =
      refusal(dir.path(), {write_change("w/a", "new\n"), write_change("ro/b", "new\n")});
  EXPECT_NE(what.find("ro/b: cannot write in folder 'ro'"), std::string::npos) << what;
  EXPECT_EQ(read_file(dir / "w/a"), "old\n");
}

// A kill: the child _exit()s at its n-th hook call.
int g_kill_at = 0;

void kill_at_step(std::string_view, const std::string&) {
  if (++g_calls == g_kill_at) ::_exit(42);
}

/// Runs write_changes in a child that is killed at hook call `kill_at`. Returns the child's
/// exit code: 42 killed, 0 finished (fewer steps than `kill_at`), 1 threw.
int run_killed(const std::string& root, const std::vector<FileChange>& changes,
               const WriteOptions& options, int kill_at) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    g_calls = 0;
    g_kill_at = kill_at;
    detail::set_write_fault_hook(&kill_at_step);
    try {
      write_changes(root, changes, options);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST(Write, KillAtEveryStepLeavesFilesWholeAndARerunFinishes) {
  // path -> (old content or nullopt, new content or nullopt)
  using State =
      std::map<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>>;
  const State states = {
      {"mod.py", {"old mod\n", "new mod\n"}}, {"deep/new/file.py", {std::nullopt, "brand new\n"}},
      {"gone.py", {"gone\n", std::nullopt}},  {"sub/mod2.py", {"old 2", "new 2\nlonger\n"}},
      {"same.py", {"same\n", "same\n"}},
  };
  const std::vector<FileChange> changes = {
      write_change("mod.py", "new mod\n"), write_change("deep/new/file.py", "brand new\n"),
      delete_change("gone.py"), write_change("sub/mod2.py", "new 2\nlonger\n"),
      write_change("same.py", "same\n")};
  for (const bool backup : {false, true}) {
    WriteOptions options;
    options.backup = backup;
    int steps = 0;
    for (int kill_at = 1;; ++kill_at) {
      SCOPED_TRACE("backup " + std::to_string(backup) + ", killed at step " +
                   std::to_string(kill_at));
      TempDir dir;
      for (const auto& [path, contents] : states)
        if (contents.first) write_file(dir / path, *contents.first);
      const int code = run_killed(dir.path(), changes, options, kill_at);
      ASSERT_TRUE(code == 42 || code == 0) << "child exit code " << code;
      for (const auto& [path, contents] : states) {
        const bool exists = fs::exists(dir / path);
        const std::optional<std::string> now =
            exists ? std::optional<std::string>(read_file(dir / path)) : std::nullopt;
        EXPECT_TRUE(now == contents.first || now == contents.second) << path;
        if (code == 0) EXPECT_EQ(now, contents.second) << path;
      }
      for (const std::string& temp : temporaries(dir.path()))
        EXPECT_NE(temp.find("/."), std::string::npos) << "a hidden temporary: " << temp;
      // The rerun finishes the job.
      write_changes(dir.path(), changes, options);
      for (const auto& [path, contents] : states) {
        if (contents.second)
          EXPECT_EQ(read_file(dir / path), *contents.second) << path;
        else
          EXPECT_FALSE(fs::exists(dir / path)) << path;
        if (backup && contents.first && contents.first != contents.second)
          EXPECT_EQ(read_file(dir / (path + ".orig")), *contents.first) << path;
      }
      if (code == 0) break;
      steps = kill_at;
    }
    // Every step was a kill point: temp-written x3, before-rename x4, renamed x3, deleted, and
    // the folders made and synced (and, with backup, the backups staged and renamed).
    EXPECT_GE(steps, backup ? 20 : 16);
  }
}

// A file edited by someone else after apply read it and before apply replaced it: the edit
// must not be lost. Before the fix the temporary was renamed over the newer content.

/// FileChange::before for a regular file holding `content`.
FileChange::Before file_before(std::string_view content) {
  FileChange::Before b;
  b.type = FileChange::Before::Type::kFile;
  b.blob_id = git_blob_id(content);
  return b;
}

/// `c` with `before` set.
FileChange with_before(FileChange c, FileChange::Before before) {
  c.before = std::move(before);
  return c;
}

// An edit by someone else: at hook step g_edit_step for change path g_edit_for, appends a line
// to (or, g_edit_create, creates) file g_edit_file.
std::string g_edit_step, g_edit_for, g_edit_file;
bool g_edit_create = false;

void edit_at_step(std::string_view step, const std::string& path) {
  if (step != g_edit_step || path != g_edit_for) return;
  if (g_edit_create) {
    write_file(g_edit_file, "created by someone else\n");
  } else {
    const std::string was = read_file(g_edit_file);
    write_file(g_edit_file, was + "edited by someone else\n");
  }
}

/// Arms edit_at_step().
void edit_at(std::string step, std::string for_path, const fs::path& file, bool create = false) {
  g_edit_step = std::move(step);
  g_edit_for = std::move(for_path);
  g_edit_file = file.string();
  g_edit_create = create;
  detail::set_write_fault_hook(&edit_at_step);
}

TEST(WriteChangedWhileApplyRan, AFileNoLongerAsReadIsRefused) {
  TempDir dir;
  write_file(dir / "a", "edited a\n");
  write_file(dir / "b", "old b\n");
  const std::string what = refusal(
      dir.path(), {with_before(write_change("a", "new a\n"), file_before("old a\n")),
                   with_before(write_change("b", "new b\n"), file_before("old b\n"))});
  EXPECT_NE(what.find("a: changed while apply ran: its bytes are no longer those apply read; "
                      "nothing was written"),
            std::string::npos)
      << what;
  EXPECT_EQ(read_file(dir / "a"), "edited a\n");
  EXPECT_EQ(read_file(dir / "b"), "old b\n");
  EXPECT_TRUE(temporaries(dir.path()).empty());
  // As read: written. Without `before`: written unchecked, as before.
  write_changes(dir.path(), {with_before(write_change("b", "new b\n"), file_before("old b\n")),
                             write_change("a", "new a\n")},
                {});
  EXPECT_EQ(read_file(dir / "a"), "new a\n");
  EXPECT_EQ(read_file(dir / "b"), "new b\n");
}

TEST(WriteChangedWhileApplyRan, AnEditWhileStagingWritesNothing) {
  for (const bool backup : {false, true}) {
    TempDir dir;
    write_file(dir / "a", "old a\n");
    write_file(dir / "b", "old b\n");
    write_file(dir / "c", "old c\n");
    HookGuard guard;
    edit_at("temp-written", "b", dir / "a");  // a's temporary is staged; then a is edited
    WriteOptions options;
    options.backup = backup;
    const std::string what =
        refusal(dir.path(),
                {with_before(write_change("a", "new a\n"), file_before("old a\n")),
                 with_before(write_change("b", "new b\n"), file_before("old b\n")),
                 with_before(delete_change("c"), file_before("old c\n"))},
                options);
    EXPECT_NE(what.find("a: changed while apply ran"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing was written"), std::string::npos) << what;
    EXPECT_EQ(read_file(dir / "a"), "old a\nedited by someone else\n");
    EXPECT_EQ(read_file(dir / "b"), "old b\n");
    EXPECT_EQ(read_file(dir / "c"), "old c\n");
    EXPECT_FALSE(fs::exists(dir / "a.orig"));
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

TEST(WriteChangedWhileApplyRan, AnEditJustBeforeTheRenameIsKept) {
  TempDir dir;
  write_file(dir / "a", "old a\n");
  write_file(dir / "b", "old b\n");
  const std::vector<FileChange> changes = {
      with_before(write_change("a", "new a\n"), file_before("old a\n")),
      with_before(write_change("b", "new b\n"), file_before("old b\n"))};
  {
    HookGuard guard;
    edit_at("before-rename", "a", dir / "a");  // the first rename: nothing written yet
    const std::string what = refusal(dir.path(), changes);
    EXPECT_NE(what.find("a: changed while apply ran"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing was written"), std::string::npos) << what;
  }
  EXPECT_EQ(read_file(dir / "a"), "old a\nedited by someone else\n");
  EXPECT_EQ(read_file(dir / "b"), "old b\n");
  EXPECT_TRUE(temporaries(dir.path()).empty());
  // The second rename: a is written already, b keeps its edit, and the message says so.
  write_file(dir / "a", "old a\n");
  {
    HookGuard guard;
    edit_at("before-rename", "b", dir / "b");
    const std::string what = refusal(dir.path(), changes);
    EXPECT_NE(what.find("b: changed while apply ran"), std::string::npos) << what;
    EXPECT_NE(what.find("written before this: a"), std::string::npos) << what;
  }
  EXPECT_EQ(read_file(dir / "a"), "new a\n");
  EXPECT_EQ(read_file(dir / "b"), "old b\nedited by someone else\n");
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

TEST(WriteChangedWhileApplyRan, AFileCreatedOrDeletedMeanwhileIsRefused) {
  TempDir dir;
  write_file(dir / "gone", "old\n");
  {
    HookGuard guard;
    edit_at("temp-written", "new/n", dir / "new/n", true);
    const std::string what =
        refusal(dir.path(), {with_before(write_change("new/n", "mine\n"), FileChange::Before{}),
                             with_before(delete_change("gone"), file_before("old\n"))});
    EXPECT_NE(what.find("new/n: changed while apply ran: it was created after apply read the "
                        "tree"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(read_file(dir / "new/n"), "created by someone else\n");
  EXPECT_EQ(read_file(dir / "gone"), "old\n");
  // A delete of a file that someone else changed keeps it.
  write_file(dir / "gone", "old\nand more\n");
  const std::string what =
      refusal(dir.path(), {with_before(delete_change("gone"), file_before("old\n"))});
  EXPECT_NE(what.find("gone: changed while apply ran"), std::string::npos) << what;
  EXPECT_EQ(read_file(dir / "gone"), "old\nand more\n");
}

TEST(WriteChangedWhileApplyRan, ATouchWithTheSameBytesIsAccepted) {
  TempDir dir;
  write_file(dir / "a", "old a\n");
  HookGuard guard;
  g_edit_step = "temp-written";
  detail::set_write_fault_hook([](std::string_view step, const std::string& path) {
    if (step == "temp-written") write_file(fs::path(g_edit_file) / path, "old a\n");
  });
  g_edit_file = dir.path();
  write_changes(dir.path(), {with_before(write_change("a", "new a\n"), file_before("old a\n"))},
                {});
  EXPECT_EQ(read_file(dir / "a"), "new a\n");
}

}  // namespace
}  // namespace sm120check
