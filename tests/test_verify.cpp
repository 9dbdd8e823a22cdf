// Verification logic over an in-memory tree: strip detection, per-change-kind decisions,
// combination of statuses, refused paths, exit codes.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {
namespace {

/// A tree held in memory: the seam that keeps these tests off the disk.
class MemoryTree : public Tree {
 public:
  void file(const std::string& path, std::string content, bool executable = false) {
    entries_[path] = {Entry::Type::kFile, std::move(content), executable};
    add_parents(path);
  }
  void symlink(const std::string& path, std::string target) {
    entries_[path] = {Entry::Type::kSymlink, std::move(target), false};
    add_parents(path);
  }
  std::string name() const override { return "mem"; }
  /// stat() of `path` throws Error (a path that cannot be examined).
  void unexaminable(const std::string& path) { unexaminable_.insert(path); }
  Entry stat(const std::string& path) const override {
    ++stats;
    ++asked[path];
    if (unexaminable_.count(path) != 0) throw Error(path, 0, "cannot examine: test");
    auto it = entries_.find(path);
    if (it == entries_.end()) return {};
    return {it->second.type, it->second.executable, it->second.data.size()};
  }
  std::string read(const std::string& path) const override {
    auto it = entries_.find(path);
    if (it == entries_.end() || it->second.type == Entry::Type::kDirectory)
      throw Error(path, 0, "cannot read");
    return it->second.data;
  }
  std::string read_link(const std::string& path) const override {
    auto it = entries_.find(path);
    if (it == entries_.end() || it->second.type != Entry::Type::kSymlink)
      throw Error(path, 0, "not a symlink");
    return it->second.data;
  }
  mutable int stats = 0;
  mutable std::map<std::string, int> asked;  ///< stat() calls per path

 private:
  struct Node {
    Entry::Type type;
    std::string data;
    bool executable;
  };
  void add_parents(const std::string& path) {
    for (std::size_t s = path.find('/'); s != std::string::npos; s = path.find('/', s + 1))
      entries_.try_emplace(path.substr(0, s), Node{Entry::Type::kDirectory, {}, false});
  }
  std::map<std::string, Node> entries_;
  std::set<std::string> unexaminable_;
};

constexpr const char* kAttnPre =
    "import triton\n"
    "\n"
    "def _get_block_sizes(head_dim):\n"
    "    if CUDA_CAPABILITY[0] >= 9:\n"
    "        BLOCK_M, BLOCK_N = 128, 64\n"
    "    else:\n"
    "        BLOCK_M, BLOCK_N = 64, 64\n"
    "    return BLOCK_M, BLOCK_N\n";

constexpr const char* kAttnPost =
    "import triton\n"
    "\n"
    "def _get_block_sizes(head_dim):\n"
    "    if CUDA_CAPABILITY[0] == 12:\n"
    "        BLOCK_M, BLOCK_N = 64, 32\n"
    "    elif CUDA_CAPABILITY[0] >= 9:\n"
    "        BLOCK_M, BLOCK_N = 128, 64\n"
    "    else:\n"
    "        BLOCK_M, BLOCK_N = 64, 64\n"
    "    return BLOCK_M, BLOCK_N\n";

constexpr const char* kAttnPatch =
    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
    "From: Dev <dev@example.com>\n"
    "Subject: [PATCH] Use smaller tiles on SM120\n"
    "\n"
    "---\n"
    " python/pkg/attn.py | 4 +++-\n"
    "\n"
    "diff --git a/python/pkg/attn.py b/python/pkg/attn.py\n"
    "index 1234567..89abcde 100644\n"
    "--- a/python/pkg/attn.py\n"
    "+++ b/python/pkg/attn.py\n"
    "@@ -1,7 +1,9 @@\n"
    " import triton\n"
    " \n"
    " def _get_block_sizes(head_dim):\n"
    "-    if CUDA_CAPABILITY[0] >= 9:\n"
    "+    if CUDA_CAPABILITY[0] == 12:\n"
    "+        BLOCK_M, BLOCK_N = 64, 32\n"
    "+    elif CUDA_CAPABILITY[0] >= 9:\n"
    "         BLOCK_M, BLOCK_N = 128, 64\n"
    "     else:\n"
    "         BLOCK_M, BLOCK_N = 64, 64\n"
    "-- \n"
    "2.39.5\n";

Patch parse_one(std::string_view text) {
  std::vector<Patch> patches = parse_patches(text, "test.patch");
  EXPECT_EQ(patches.size(), 1u);
  return patches.empty() ? Patch{} : patches.front();
}

PatchReport run(const MemoryTree& tree, std::string_view text, VerifyOptions options = {}) {
  return verify_patch(parse_one(text), tree, options);
}

TEST(VerifyModify, ApplicableAppliedConflict) {
  MemoryTree pre;
  pre.file("python/pkg/attn.py", kAttnPre);
  PatchReport r = run(pre, kAttnPatch);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_EQ(r.strip, 1u);
  EXPECT_TRUE(r.strip_detected);
  ASSERT_EQ(r.subject, "Use smaller tiles on SM120");
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].target_path, "python/pkg/attn.py");
  ASSERT_EQ(r.files[0].hunks.size(), 1u);
  EXPECT_EQ(r.files[0].hunks[0].match.line, 1u);

  MemoryTree post;
  post.file("python/pkg/attn.py", kAttnPost);
  EXPECT_EQ(run(post, kAttnPatch).status, Status::kApplied);

  MemoryTree other;
  other.file("python/pkg/attn.py", "something else\n");
  PatchReport c = run(other, kAttnPatch);
  EXPECT_EQ(c.status, Status::kConflict);
  EXPECT_EQ(c.files[0].hunks[0].match.status, HunkStatus::kConflict);
}

// An added file whose content stands whole: a later change making it executable does not
// undo the fix (hostile review hv16: lightllm 049c1303's docs/EN/.readthedocs.yaml, made 100755
// by a later commit, read conflict at every later head). An added program without its
// executable bit is still a conflict: it does not run.
TEST(VerifyAdd, ModeOfAnAddedFileOnlyMattersWhenItMustRun) {
  constexpr std::string_view kAddText =
      "diff --git a/docs/conf.yaml b/docs/conf.yaml\nnew file mode 100644\n--- /dev/null\n"
      "+++ b/docs/conf.yaml\n@@ -0,0 +1,2 @@\n+version: 2\n+build: {}\n";
  MemoryTree exec;
  exec.file("docs/conf.yaml", "version: 2\nbuild: {}\n", true);
  const PatchReport a = run(exec, kAddText);
  EXPECT_EQ(a.status, Status::kApplied) << a.files[0].reason;
  EXPECT_NE(a.files[0].reason.find("executable"), std::string::npos) << a.files[0].reason;
  constexpr std::string_view kAddScript =
      "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n"
      "+++ b/run.sh\n@@ -0,0 +1,1 @@\n+echo run\n";
  MemoryTree plain;
  plain.file("run.sh", "echo run\n", false);
  EXPECT_EQ(run(plain, kAddScript).status, Status::kConflict);
  MemoryTree script;
  script.file("run.sh", "echo run\n", true);
  EXPECT_EQ(run(script, kAddScript).status, Status::kApplied);
}

// A run asks the tree about each path once (strip detection at five levels, the verdicts, the
// series, the evidence all ask again): what it answered is kept, a failure too, which every
// file patch on that path then reports.
TEST(VerifyRun, AsksTheTreeAboutEachPathOnce) {
  MemoryTree tree;
  tree.file("python/pkg/attn.py", kAttnPost);
  tree.unexaminable("python/pkg/bad.py");
  std::string bad = kAttnPatch;
  for (std::size_t at; (at = bad.find("attn.py")) != std::string::npos;) bad.replace(at, 7, "bad.py");
  std::vector<Patch> run_patches;
  for (const std::string& text : {std::string(kAttnPatch), bad, std::string(kAttnPatch), bad})
    run_patches.push_back(parse_one(text));
  VerifyOptions options;
  options.strip = 1;  // detection would stat the bad path at every level first
  const VerifyReport r = verify(run_patches, tree, options);
  ASSERT_EQ(r.patches.size(), 4u);
  EXPECT_EQ(r.patches[0].status, Status::kApplied);
  EXPECT_EQ(r.patches[2].status, Status::kApplied);
  for (std::size_t i : {1u, 3u}) {
    EXPECT_EQ(r.patches[i].files[0].status, Status::kError) << i;
    EXPECT_EQ(r.patches[i].files[0].reason, "python/pkg/bad.py: cannot examine: test") << i;
  }
  for (const auto& [path, calls] : tree.asked) EXPECT_EQ(calls, 1) << path;
  EXPECT_EQ(tree.asked.count("python/pkg/attn.py"), 1u);
  EXPECT_EQ(tree.asked.count("python/pkg/bad.py"), 1u);
}

TEST(VerifyModify, ShiftedFileReportsOffset) {
  MemoryTree t;
  t.file("python/pkg/attn.py", std::string("# a\n# b\n# c\n") + kAttnPost);
  PatchReport r = run(t, kAttnPatch);
  EXPECT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(r.files[0].hunks[0].match.line, 4u);
  EXPECT_EQ(r.files[0].hunks[0].match.offset, 3);
}

TEST(VerifyModify, MissingFileIsConflictWithReason) {
  MemoryTree t;
  t.file("python/pkg/other.py", "x\n");
  PatchReport r = run(t, kAttnPatch);
  EXPECT_EQ(r.status, Status::kConflict);
  EXPECT_NE(r.files[0].reason.find("does not exist"), std::string::npos) << r.files[0].reason;
}

TEST(VerifyStrip, DetectsLevelThatMakesPathsExist) {
  MemoryTree site;  // a site-packages style layout: "python/" is not there
  site.file("pkg/attn.py", kAttnPre);
  PatchReport r = run(site, kAttnPatch);
  EXPECT_EQ(r.strip, 2u);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_EQ(r.files[0].target_path, "pkg/attn.py");

  MemoryTree deep;
  deep.file("x/y/python/pkg/attn.py", kAttnPre);
  EXPECT_EQ(run(deep, kAttnPatch).strip, 1u) << "nothing exists: git patches default to -p1";
}

TEST(VerifyStrip, ALevelThatEmptiesAPathIsNeverChosen) {
  // A real case (Liger-Kernel 16e49d406): a patch adds a sub-project whose README.md and
  // setup.py also stand at the tree's top, and edits .gitignore. At -p2 the added files
  // "exist" (the top-level ones) but "a/.gitignore" has no component left: -p1 is the level.
  MemoryTree t;
  t.file(".gitignore", "build/\n");
  t.file("README.md", "top\n");
  t.file("setup.py", "top\n");
  const std::string patch =
      "diff --git a/.gitignore b/.gitignore\n"
      "--- a/.gitignore\n"
      "+++ b/.gitignore\n"
      "@@ -1 +1,2 @@\n"
      " build/\n"
      "+dist/\n"
      "diff --git a/sub/README.md b/sub/README.md\n"
      "new file mode 100644\n"
      "--- /dev/null\n"
      "+++ b/sub/README.md\n"
      "@@ -0,0 +1 @@\n"
      "+sub\n"
      "diff --git a/sub/setup.py b/sub/setup.py\n"
      "new file mode 100644\n"
      "--- /dev/null\n"
      "+++ b/sub/setup.py\n"
      "@@ -0,0 +1 @@\n"
      "+sub\n";
  PatchReport r = run(t, patch);
  EXPECT_EQ(r.strip, 1u);
  EXPECT_EQ(r.status, Status::kApplicable);
}

TEST(VerifyModify, ASubmoduleBumpIsUnknownNotConflict) {
  // flashinfer 27a5a2945a bumps 3rdparty/nixl: in a tree (a checkout, an archive) the
  // submodule is a folder, and the commit it records is in no file.
  MemoryTree t;
  t.file("3rdparty/nixl/README.md", "nixl\n");
  PatchReport r = run(t,
                      "diff --git a/3rdparty/nixl b/3rdparty/nixl\n"
                      "index 1111111..2222222 160000\n"
                      "--- a/3rdparty/nixl\n"
                      "+++ b/3rdparty/nixl\n"
                      "@@ -1 +1 @@\n"
                      "-Subproject commit 1111111111111111111111111111111111111111\n"
                      "+Subproject commit 2222222222222222222222222222222222222222\n");
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].status, Status::kUnknown) << r.files[0].reason;
  EXPECT_NE(r.files[0].reason.find("submodule"), std::string::npos) << r.files[0].reason;
}

TEST(VerifyStrip, ForcedLevelIsUsed) {
  MemoryTree t;
  t.file("python/pkg/attn.py", kAttnPre);
  VerifyOptions o;
  o.strip = 0;
  PatchReport r = run(t, kAttnPatch, o);
  EXPECT_EQ(r.strip, 0u);
  EXPECT_FALSE(r.strip_detected);
  EXPECT_EQ(r.status, Status::kConflict);
  EXPECT_EQ(r.files[0].target_path, "b/python/pkg/attn.py") << "neither exists: the new name";
}

TEST(VerifyStrip, PlainDiffAtLevelZero) {
  MemoryTree t;
  t.file("src/app.c", "int a;\nint b;\nint c;\n");
  PatchReport r = run(t,
                      "Index: src/app.c\n"
                      "===================================================================\n"
                      "--- src/app.c\t(revision 10)\n"
                      "+++ src/app.c\t(working copy)\n"
                      "@@ -1,3 +1,3 @@\n"
                      " int a;\n"
                      "-int b;\n"
                      "+long b;\n"
                      " int c;\n");
  EXPECT_EQ(r.strip, 0u);
  EXPECT_EQ(r.status, Status::kApplicable);
}

TEST(VerifyPaths, EscapingPathIsRefusedNotRead) {
  MemoryTree t;
  t.file("ok.txt", "a\n");
  PatchReport r = run(t,
                      "--- a/../../etc/passwd\n"
                      "+++ b/../../etc/passwd\n"
                      "@@ -1 +1 @@\n"
                      "-root\n"
                      "+toor\n");
  EXPECT_EQ(r.status, Status::kError);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].status, Status::kError);
  EXPECT_NE(r.files[0].reason.find("climbs out of the target"), std::string::npos)
      << r.files[0].reason;
}

TEST(VerifyPaths, AbsolutePathAtLevelZeroIsRefused) {
  MemoryTree t;
  VerifyOptions o;
  o.strip = 0;
  PatchReport r = run(t,
                      "--- /etc/hosts\n"
                      "+++ /etc/hosts\n"
                      "@@ -1 +1 @@\n"
                      "-a\n"
                      "+b\n",
                      o);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_NE(r.files[0].reason.find("absolute"), std::string::npos) << r.files[0].reason;
}

constexpr const char* kAddPatch =
    "diff --git a/docs/new.md b/docs/new.md\n"
    "new file mode 100644\n"
    "index 0000000..3b18e51\n"
    "--- /dev/null\n"
    "+++ b/docs/new.md\n"
    "@@ -0,0 +1,2 @@\n"
    "+hello\n"
    "+world\n";

TEST(VerifyAdd, AbsentPresentDifferent) {
  MemoryTree absent;
  absent.file("docs/index.md", "x\n");
  PatchReport r = run(absent, kAddPatch);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_EQ(r.strip, 1u);
  EXPECT_EQ(r.files[0].target_path, "docs/new.md");
  EXPECT_EQ(r.files[0].change, ChangeKind::kAdd);

  MemoryTree present;
  present.file("docs/new.md", "hello\nworld\n");
  EXPECT_EQ(run(present, kAddPatch).status, Status::kApplied);

  MemoryTree different;
  different.file("docs/new.md", "hello\n");
  PatchReport c = run(different, kAddPatch);
  EXPECT_EQ(c.status, Status::kConflict);
  EXPECT_NE(c.files[0].reason.find("different content"), std::string::npos);
}

// Strip detection for a patch that only adds files: a parent folder of one component found
// at a deeper level is in most trees, and is not taken for the patch's (hostile review,
// session 34: python/pkg/kernels/sm120_config.py, added, read applied against an older
// kernels/sm120_config.py at -p3, exit 0); an installed package's two-component folder is.
constexpr const char* kAddDeepPatch =
    "diff --git a/python/pkg/kernels/sm120_config.py b/python/pkg/kernels/sm120_config.py\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/python/pkg/kernels/sm120_config.py\n"
    "@@ -0,0 +1,2 @@\n"
    "+if major == 12:\n"
    "+    BLOCK = 64\n";

TEST(VerifyAdd, AOneFolderParentAtADeeperLevelIsNoEvidenceOfIt) {
  MemoryTree before;  // the commit's parent: no python/, an older copy in kernels/
  before.file("kernels/sm120_config.py", "if major == 12:\n    BLOCK = 64\n");
  PatchReport r = run(before, kAddDeepPatch);
  EXPECT_EQ(r.strip, 1u);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_EQ(r.files[0].target_path, "python/pkg/kernels/sm120_config.py");

  MemoryTree after = before;
  after.file("python/pkg/kernels/sm120_config.py", "if major == 12:\n    BLOCK = 64\n");
  EXPECT_EQ(run(after, kAddDeepPatch).status, Status::kApplied);

  // An installed copy (site-packages holds pkg/kernels/, not python/): -p2, by the two
  // components of pkg/kernels.
  MemoryTree installed;
  installed.file("pkg/kernels/other.py", "x = 1\n");
  PatchReport i = run(installed, kAddDeepPatch);
  EXPECT_EQ(i.strip, 2u);
  EXPECT_EQ(i.status, Status::kApplicable);
  installed.file("pkg/kernels/sm120_config.py", "if major == 12:\n    BLOCK = 64\n");
  PatchReport j = run(installed, kAddDeepPatch);
  EXPECT_EQ(j.strip, 2u);
  EXPECT_EQ(j.status, Status::kApplied);
}

// Hostile review (session 34, second pass). The added files' folders never outweigh the files
// the patch changes: every one there at -p1 is -p1 (a top pkg/ copy holding the fix read
// applied at -p2, exit 0, where python/pkg/a.py was unpatched). A deleted file's path of one
// component at -p3 (README.md) is no evidence either. And a `diff -ruN orig new` patch adding
// pkg/new.py is -p1 (its new/ prefix), not -p0, whatever depth its folder has.
TEST(VerifyAdd, StripDetectionTrustsTheChangedFilesFirst) {
  constexpr const char* kModAdd =
      "diff --git a/python/pkg/a.py b/python/pkg/a.py\n"
      "--- a/python/pkg/a.py\n"
      "+++ b/python/pkg/a.py\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+a2\n"
      "diff --git a/python/pkg/sub/x.py b/python/pkg/sub/x.py\n"
      "new file mode 100644\n"
      "--- /dev/null\n"
      "+++ b/python/pkg/sub/x.py\n"
      "@@ -0,0 +1 @@\n"
      "+b\n";
  MemoryTree t;
  t.file("python/pkg/a.py", "a\n");
  t.file("pkg/a.py", "a2\n");
  t.file("pkg/sub/x.py", "b\n");
  PatchReport r = run(t, kModAdd);
  EXPECT_EQ(r.strip, 1u);
  EXPECT_EQ(r.status, Status::kApplicable);

  constexpr const char* kMove =
      "diff --git a/python/pkg/README.md b/python/pkg/README.md\n"
      "deleted file mode 100644\n"
      "--- a/python/pkg/README.md\n"
      "+++ /dev/null\n"
      "@@ -1 +0,0 @@\n"
      "-read me\n"
      "diff --git a/python/pkg/docs/README.md b/python/pkg/docs/README.md\n"
      "new file mode 100644\n"
      "--- /dev/null\n"
      "+++ b/python/pkg/docs/README.md\n"
      "@@ -0,0 +1 @@\n"
      "+read me\n";
  MemoryTree moved;  // the commit, plus a top-level README.md
  moved.file("python/pkg/docs/README.md", "read me\n");
  moved.file("python/pkg/b.py", "x\n");
  moved.file("README.md", "top\n");
  PatchReport m = run(moved, kMove);
  EXPECT_EQ(m.strip, 1u);
  EXPECT_EQ(m.status, Status::kApplied);

  constexpr const char* kPlain =
      "diff -ruN orig/pkg/new.py new/pkg/new.py\n"
      "--- orig/pkg/new.py\t1970-01-01 00:00:00.000000000 +0000\n"
      "+++ new/pkg/new.py\t2026-12-04 00:00:00.000000000 +0000\n"
      "@@ -0,0 +1 @@\n"
      "+n = 1\n";
  MemoryTree plain;
  plain.file("pkg/old.py", "o = 1\n");
  PatchReport p = run(plain, kPlain);
  EXPECT_EQ(p.strip, 1u);
  EXPECT_EQ(p.status, Status::kApplicable);
  plain.file("pkg/new.py", "n = 1\n");
  EXPECT_EQ(run(plain, kPlain).status, Status::kApplied);
}

TEST(VerifyAdd, SymlinkComparedByTargetNotContent) {
  const char* patch =
      "diff --git a/latest b/latest\n"
      "new file mode 120000\n"
      "index 0000000..4cbb553\n"
      "--- /dev/null\n"
      "+++ b/latest\n"
      "@@ -0,0 +1 @@\n"
      "+target.txt\n"
      "\\ No newline at end of file\n";
  MemoryTree link;
  link.file("target.txt", "t\n");
  link.symlink("latest", "target.txt");
  EXPECT_EQ(run(link, patch).status, Status::kApplied);
  MemoryTree regular;
  regular.file("target.txt", "t\n");
  regular.file("latest", "target.txt");
  EXPECT_EQ(run(regular, patch).status, Status::kConflict);
  MemoryTree elsewhere;
  elsewhere.file("target.txt", "t\n");
  elsewhere.symlink("latest", "other.txt");
  EXPECT_EQ(run(elsewhere, patch).status, Status::kConflict);
}

constexpr const char* kDeletePatch =
    "diff --git a/old.txt b/old.txt\n"
    "deleted file mode 100644\n"
    "index 3b18e51..0000000\n"
    "--- a/old.txt\n"
    "+++ /dev/null\n"
    "@@ -1,2 +0,0 @@\n"
    "-hello\n"
    "-world\n";

TEST(VerifyDelete, WholeFileMustMatch) {
  MemoryTree present;
  present.file("old.txt", "hello\nworld\n");
  EXPECT_EQ(run(present, kDeletePatch).status, Status::kApplicable);
  MemoryTree gone;
  gone.file("other.txt", "x\n");
  EXPECT_EQ(run(gone, kDeletePatch).status, Status::kApplied);
  MemoryTree longer;
  longer.file("old.txt", "hello\nworld\nmore\n");
  EXPECT_EQ(run(longer, kDeletePatch).status, Status::kConflict);
}

constexpr const char* kRenamePatch =
    "diff --git a/scripts/run.sh b/bin/run.sh\n"
    "old mode 100644\n"
    "new mode 100755\n"
    "similarity index 80%\n"
    "rename from scripts/run.sh\n"
    "rename to bin/run.sh\n"
    "index 1111111..2222222\n"
    "--- a/scripts/run.sh\n"
    "+++ b/bin/run.sh\n"
    "@@ -1,3 +1,3 @@\n"
    " #!/bin/sh\n"
    "-mode=debug\n"
    "+mode=release\n"
    " echo done\n";

TEST(VerifyRename, BeforeAfterHalfway) {
  MemoryTree before;
  before.file("scripts/run.sh", "#!/bin/sh\nmode=debug\necho done\n");
  PatchReport r = run(before, kRenamePatch);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_EQ(r.files[0].target_path, "scripts/run.sh");

  MemoryTree after;
  after.file("bin/run.sh", "#!/bin/sh\nmode=release\necho done\n", true);
  PatchReport a = run(after, kRenamePatch);
  EXPECT_EQ(a.status, Status::kApplied);
  EXPECT_EQ(a.files[0].target_path, "bin/run.sh");

  MemoryTree no_chmod;  // renamed and edited, but the executable bit was not set
  no_chmod.file("bin/run.sh", "#!/bin/sh\nmode=release\necho done\n", false);
  EXPECT_EQ(run(no_chmod, kRenamePatch).status, Status::kPartial);

  MemoryTree neither;
  neither.file("x", "y\n");
  EXPECT_EQ(run(neither, kRenamePatch).status, Status::kConflict);
}

TEST(VerifyMode, ExecutableBitDecides) {
  const char* patch =
      "diff --git a/tool.sh b/tool.sh\n"
      "old mode 100644\n"
      "new mode 100755\n";
  MemoryTree plain;
  plain.file("tool.sh", "echo\n", false);
  PatchReport r = run(plain, patch);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_EQ(r.files[0].change, ChangeKind::kMode);
  MemoryTree exec;
  exec.file("tool.sh", "echo\n", true);
  EXPECT_EQ(run(exec, patch).status, Status::kApplied);
}

// fuzz_apply (H200 run 2): a zero-context insertion ("@@ -0,0 +1 @@", "+only line") whose
// index line names the file holding that line as its pre-image. The blob id settled the hunk
// applicable because an empty pre-image stands at its header in any file, and apply wrote the
// line a second time. The inserted line found where it belongs decides: applied.
TEST(VerifyModify, AnEmptyImageAtItsHeaderDoesNotLetALyingIndexLineFlipTheHunk) {
  MemoryTree tree;
  tree.file("x", "only line\nalpha\n");
  const PatchReport r = run(tree,
                            "diff --git a/x b/x\nindex bcd4e07..1bd3656\n--- a/x\n+++ b/x\n"
                            "@@ -0,0 +1 @@\n+only line\n");
  EXPECT_EQ(r.status, Status::kApplied);
  EXPECT_NE(r.files.at(0).reason.find("the hunks decide"), std::string::npos) << r.files[0].reason;
}

TEST(VerifyBinary, DecidedByBlobId) {
  std::string old_content = std::string("\x89PNG\0\x01", 6);
  std::string new_content = std::string("\x89PNG\0\x02", 6);
  std::string patch =
      "diff --git a/logo.png b/logo.png\n"
      "index " +
      git_blob_id(old_content).substr(0, 7) + ".." + git_blob_id(new_content) +
      " 100644\n"
      "Binary files a/logo.png and b/logo.png differ\n";
  MemoryTree pre, post, other;
  pre.file("logo.png", old_content);
  post.file("logo.png", new_content);
  other.file("logo.png", "zzz");
  PatchReport r = run(pre, patch);
  EXPECT_EQ(r.status, Status::kApplicable);
  EXPECT_NE(r.files[0].reason.find("blob id matches the pre-image"), std::string::npos);
  EXPECT_EQ(run(post, patch).status, Status::kApplied);
  EXPECT_EQ(run(other, patch).status, Status::kConflict);
}

TEST(VerifyBinary, WithoutIndexLineIsUnknown) {
  MemoryTree t;
  t.file("logo.png", std::string("\0\1", 2));
  PatchReport r = run(t,
                      "diff --git a/logo.png b/logo.png\n"
                      "Binary files a/logo.png and b/logo.png differ\n");
  EXPECT_EQ(r.status, Status::kUnknown);
  EXPECT_NE(r.files[0].reason.find("no blob ids"), std::string::npos);
}

TEST(VerifyPatch, PartialAcrossFiles) {
  std::string two = std::string(kAttnPatch);
  two.insert(two.find("-- \n"),
             "diff --git a/python/pkg/util.py b/python/pkg/util.py\n"
             "index 1234567..89abcde 100644\n"
             "--- a/python/pkg/util.py\n"
             "+++ b/python/pkg/util.py\n"
             "@@ -1,2 +1,2 @@\n"
             " def f():\n"
             "-    return 1\n"
             "+    return 2\n");
  MemoryTree t;
  t.file("python/pkg/attn.py", kAttnPost);
  t.file("python/pkg/util.py", "def f():\n    return 1\n");
  PatchReport r = run(t, two);
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].status, Status::kApplied);
  EXPECT_EQ(r.files[1].status, Status::kApplicable);
  EXPECT_EQ(r.status, Status::kPartial);
}

TEST(VerifyReport, ExitCodesFollowTheWorstPatch) {
  auto report = [](std::vector<Status> statuses) {
    VerifyReport r;
    for (Status s : statuses) {
      PatchReport p;
      p.status = s;
      r.patches.push_back(p);
    }
    return r.exit_code();
  };
  EXPECT_EQ(report({Status::kApplied, Status::kApplied}), 0);
  EXPECT_EQ(report({Status::kApplied, Status::kApplicable}), 1);
  EXPECT_EQ(report({Status::kApplicable, Status::kPartial}), 2);
  EXPECT_EQ(report({Status::kApplied, Status::kUnknown}), 2);
  EXPECT_EQ(report({Status::kConflict, Status::kError}), 3);
}

TEST(VerifyReport, CombineRules) {
  using S = Status;
  EXPECT_EQ(combine({S::kApplied, S::kApplied}), S::kApplied);
  EXPECT_EQ(combine({S::kApplicable, S::kApplicable}), S::kApplicable);
  EXPECT_EQ(combine({S::kApplied, S::kApplicable}), S::kPartial);
  EXPECT_EQ(combine({S::kApplied, S::kPartial}), S::kPartial);
  EXPECT_EQ(combine({S::kPartial, S::kConflict}), S::kConflict);
  EXPECT_EQ(combine({S::kUnknown, S::kApplied}), S::kUnknown);
  EXPECT_EQ(combine({S::kConflict, S::kUnknown}), S::kConflict);
  EXPECT_EQ(combine({S::kError, S::kConflict}), S::kError);
}

TEST(VerifyReport, CommonStrip) {
  VerifyReport r;
  EXPECT_EQ(r.common_strip(), std::nullopt);
  r.patches.resize(2);
  r.patches[0].strip = 1;
  r.patches[1].strip = 1;
  EXPECT_EQ(r.common_strip(), 1u);
  r.patches[1].strip = 2;
  EXPECT_EQ(r.common_strip(), std::nullopt);
}

TEST(VerifyNoHunks, ContentChangeWithoutHunksIsDecidedByBlobIds) {
  const std::string old_content = "x = 1\n", new_content = "x  =  1\n";
  const std::string patch =
      "diff --git a/w.py b/w.py\n"
      "index " +
      git_blob_id(old_content).substr(0, 7) + ".." + git_blob_id(new_content).substr(0, 7) +
      " 100644\n";
  MemoryTree pre, post, other;
  pre.file("w.py", old_content);
  post.file("w.py", new_content);
  other.file("w.py", "y\n");
  EXPECT_EQ(run(pre, patch).status, Status::kApplicable);
  EXPECT_EQ(run(post, patch).status, Status::kApplied);
  PatchReport c = run(other, patch);
  EXPECT_EQ(c.status, Status::kConflict);
  EXPECT_NE(c.files[0].reason.find("matches neither"), std::string::npos) << c.files[0].reason;
}

TEST(VerifyNoHunks, NothingToCompareIsUnknownNotApplied) {
  MemoryTree t;
  t.file("w.py", "x\n");
  PatchReport r = run(t,
                      "diff --git a/w.py b/w.py\n"
                      "index 1111111..1111111 100644\n");
  EXPECT_EQ(r.status, Status::kUnknown);
  EXPECT_NE(r.files[0].reason.find("no change"), std::string::npos) << r.files[0].reason;
}

TEST(VerifyMode, TypeChangeComparesTheFileType) {
  const char* patch =
      "diff --git a/f b/f\n"
      "old mode 100644\n"
      "new mode 120000\n";
  MemoryTree regular, link;
  regular.file("f", "x\n");
  link.symlink("f", "x");
  EXPECT_EQ(run(regular, patch).status, Status::kApplicable);
  EXPECT_EQ(run(link, patch).status, Status::kApplied);
}

TEST(VerifyPatch, SeveralSectionsForOneFileAreMatchedInTurn) {
  MemoryTree t;
  t.file("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\n");
  PatchReport r = run(t,
                      "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
                      "--- a/a.txt\n+++ b/a.txt\n@@ -5,2 +5,2 @@\n five\n-six\n+SIX\n");
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].status, Status::kApplicable);
  EXPECT_EQ(r.files[1].status, Status::kApplicable);
  EXPECT_EQ(r.files[1].hunks[0].match.line, 5u);
}

TEST(VerifySeries, PatchRefinedByALaterPatchIsJudgedWithItTakenOut) {
  // Patch 1 adds an SM120 branch; patch 2 retunes the same lines. The tree has both.
  const char* series =
      "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH 1/2] add SM120 branch\n"
      "\n"
      "---\n"
      "diff --git a/k.py b/k.py\n"
      "--- a/k.py\n"
      "+++ b/k.py\n"
      "@@ -1,3 +1,5 @@\n"
      " def tile(cc):\n"
      "+    if cc == 12:\n"
      "+        return 64\n"
      "     return 128\n"
      " # end\n"
      "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH 2/2] tune SM120 tile\n"
      "\n"
      "---\n"
      "diff --git a/k.py b/k.py\n"
      "--- a/k.py\n"
      "+++ b/k.py\n"
      "@@ -1,5 +1,5 @@\n"
      " def tile(cc):\n"
      "     if cc == 12:\n"
      "-        return 64\n"
      "+        return 48\n"
      "     return 128\n"
      " # end\n";
  std::vector<Patch> patches = parse_patches(series, "series.mbox");
  ASSERT_EQ(patches.size(), 2u);

  MemoryTree both;
  both.file("k.py", "def tile(cc):\n    if cc == 12:\n        return 48\n    return 128\n# end\n");
  VerifyReport r = verify(patches, both, {});
  EXPECT_EQ(r.patches[0].status, Status::kApplied);
  EXPECT_NE(r.patches[0].files[0].reason.find(
                "applied once patch 2 (tune SM120 tile) is taken out"),
            std::string::npos)
      << r.patches[0].files[0].reason;
  EXPECT_EQ(r.patches[1].status, Status::kApplied);
  EXPECT_EQ(r.exit_code(), 0);

  MemoryTree first_only;
  first_only.file("k.py",
                  "def tile(cc):\n    if cc == 12:\n        return 64\n    return 128\n# end\n");
  VerifyReport f = verify(patches, first_only, {});
  EXPECT_EQ(f.patches[0].status, Status::kApplied);
  EXPECT_EQ(f.patches[1].status, Status::kApplicable);

  MemoryTree other;  // the lines were changed some other way: a real conflict stays one
  other.file("k.py", "def tile(cc):\n    if cc == 12:\n        return 32\n    return 128\n# end\n");
  VerifyReport o = verify(patches, other, {});
  EXPECT_EQ(o.patches[0].status, Status::kConflict);
  EXPECT_EQ(o.patches[1].status, Status::kConflict);
}

// --- False applied: index lines ---------------------------------------------------------------

/// A git patch of cfg.py whose one hunk replaces "mode = 1" (not in the file below) and whose
/// index line carries `ids`.
std::string cfg_patch(const std::string& ids) {
  return "diff --git a/cfg.py b/cfg.py\nindex " + ids +
         " 100644\n--- a/cfg.py\n+++ b/cfg.py\n@@ -1,3 +1,3 @@\n a = 1\n-mode = 1\n+mode = 2\n"
         " b = 2\n";
}

TEST(FalseAppliedVerify, ShortBlobIdNeverDecides) {
  // One hex digit that happens to equal the file's id's first digit: once enough for
  // `applied`. Ids need 7 digits; the hunk conflicts, so the file does.
  std::string content = "a = 1\nmode = 3\nb = 2\n";
  while (git_blob_id(content)[0] == '0') content += "\n";  // "0" alone means "no file"
  MemoryTree tree;
  tree.file("cfg.py", content);
  const std::string id = git_blob_id(content);
  PatchReport r = run(tree, cfg_patch("1234567.." + id.substr(0, 1)));
  EXPECT_EQ(r.status, Status::kConflict);
  EXPECT_NE(r.presence, Presence::kPresent);
  EXPECT_EQ(r.files[0].reason, "index line ids shorter than 7 hex digits: not used");
}

TEST(FalseAppliedVerify, StaleIndexLineNeverOverrulesConflictingHunks) {
  // A hand-edited patch whose index line still names the file's blob as the post-image: the
  // hunks conflict, so they decide, and the reason says so.
  const std::string content = "a = 1\nmode = 3\nb = 2\n";
  MemoryTree tree;
  tree.file("cfg.py", content);
  PatchReport r = run(tree, cfg_patch("1234567.." + git_blob_id(content)));
  EXPECT_EQ(r.status, Status::kConflict);
  EXPECT_EQ(r.files[0].reason,
            "blob id matches the post-image, but hunk 1 is conflict: the hunks decide (the patch "
            "text or its index line was changed)");
}

TEST(VerifyPresence, FilesAndPatchesCombineTheirHunks) {
  EXPECT_EQ(combine_presence({}), Presence::kPresent);
  EXPECT_EQ(combine_presence({Presence::kPresent, Presence::kPresent}), Presence::kPresent);
  EXPECT_EQ(combine_presence({Presence::kAbsent, Presence::kAbsent}), Presence::kAbsent);
  EXPECT_EQ(combine_presence({Presence::kPresent, Presence::kAbsent}), Presence::kPartial);
  EXPECT_EQ(combine_presence({Presence::kPartial, Presence::kPresent}), Presence::kPartial);
  EXPECT_EQ(combine_presence({Presence::kPresent, Presence::kUnknown}), Presence::kUnknown);

  // A patch over two files, one present and one absent: partial, whatever the statuses.
  MemoryTree tree;
  tree.file("python/pkg/attn.py", kAttnPost);
  tree.file("cfg.py", "a = 1\nmode = 1\nb = 2\n");
  Patch two = parse_one(kAttnPatch);
  two.files.push_back(parse_one(cfg_patch("1234567..89abcde")).files.at(0));
  PatchReport r = verify_patch(two, tree, {});
  EXPECT_EQ(r.status, Status::kPartial);
  EXPECT_EQ(r.presence, Presence::kPartial);
  EXPECT_EQ(r.files[0].presence, Presence::kPresent);
  EXPECT_EQ(r.files[1].presence, Presence::kAbsent);

  // A missing file says nothing of the fix (it may stand in a file that moved, or the target
  // does not ship the file): unknown, "file-missing" (new-user pass fu26: "fix: absent" for
  // FlashInfer's gemm.py, moved to gemm/gemm_base.py with the fix in it).
  MemoryTree empty;
  empty.file("other.py", "x\n");
  const PatchReport missing = run(empty, kAttnPatch, {});
  EXPECT_EQ(missing.presence, Presence::kUnknown);
  ASSERT_FALSE(missing.files.at(0).hunks.empty());
  EXPECT_EQ(missing.files[0].hunks[0].match.presence_reason, "file-missing");
}

}  // namespace
}  // namespace sm120check
