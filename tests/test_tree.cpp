// Tests of src/tree: path normalisation, DiskTree (read-only, symlink containment, size limit,
// fifos) and git blob ids.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "../src/tree/mapped_file.hpp"
#include "sm120check/directory_walk.hpp"
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_file;

/// Runs `fn` and returns the Error's what(), or "<no error>".
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// --- normalize_relative_path ------------------------------------------------------------------

struct NormalizeCase {
  std::string input;
  std::optional<std::string> expected;
};

TEST(TreeNormalize, Table) {
  const NormalizeCase cases[] = {
      {"a", "a"},
      {"a/b/c.py", "a/b/c.py"},
      {"./a", "a"},
      {"a/./b", "a/b"},
      {"a//b", "a/b"},
      {"a/b/", "a/b"},
      {"a/../b", "b"},
      {"a/b/../../c", "c"},
      {"a/b/../c/./d", "a/c/d"},
      {"", std::nullopt},
      {"/x", std::nullopt},
      {"/", std::nullopt},
      {"..", std::nullopt},
      {"../x", std::nullopt},
      {"a/../../x", std::nullopt},
      {"a/b/../../../x", std::nullopt},
      {".", std::nullopt},
      {"a/..", std::nullopt},
      {std::string("a\0b", 3), std::nullopt},
      {"...", "..."},
      {"a/..b", "a/..b"},
  };
  for (const NormalizeCase& c : cases) {
    EXPECT_EQ(normalize_relative_path(c.input), c.expected) << "input: '" << c.input << "'";
  }
}

// --- open_disk_tree ---------------------------------------------------------------------------

TEST(TreeOpen, MissingRoot) {
  TempDir dir;
  std::string root = dir / "nope";
  EXPECT_EQ(error_of([&] { open_disk_tree(root); }), root + ": target does not exist");
}

TEST(TreeOpen, RootIsAFile) {
  TempDir dir;
  write_file(dir / "file", "x\n");
  std::string root = dir / "file";
  EXPECT_EQ(error_of([&] { open_disk_tree(root); }), root + ": target is not a directory");
}

TEST(TreeOpen, NameIsTheRootAsGiven) {
  TempDir dir;
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->name(), dir.path().string());
  EXPECT_EQ(tree->max_file_size(), Tree::kDefaultMaxFileSize);
  auto small = open_disk_tree(dir.path().string(), 10);
  EXPECT_EQ(small->max_file_size(), 10u);
}

TEST(TreeOpen, RootThroughSymlinkIsAllowed) {
  TempDir dir;
  write_file(dir / "real/a.txt", "A\n");
  fs::create_directory_symlink(dir / "real", dir / "link");
  auto tree = open_disk_tree(dir / "link");
  EXPECT_EQ(tree->read("a.txt"), "A\n");
}

// --- stat ---------------------------------------------------------------------------------------

TEST(TreeStat, Types) {
  TempDir dir;
  write_file(dir / "src/plain.py", "print(1)\n");
  write_file(dir / "src/run.sh", "#!/bin/sh\n");
  fs::permissions(dir / "src/run.sh", fs::perms::owner_exec, fs::perm_options::add);
  fs::create_symlink("plain.py", dir / "src/link.py");
  ASSERT_EQ(::mkfifo((dir / "src/fifo").c_str(), 0600), 0);
  auto tree = open_disk_tree(dir.path().string());

  Entry plain = tree->stat("src/plain.py");
  EXPECT_EQ(plain.type, Entry::Type::kFile);
  EXPECT_FALSE(plain.executable);
  EXPECT_EQ(plain.size, 9u);

  Entry run = tree->stat("src/run.sh");
  EXPECT_EQ(run.type, Entry::Type::kFile);
  EXPECT_TRUE(run.executable);
  EXPECT_EQ(run.size, 10u);

  EXPECT_EQ(tree->stat("src/link.py").type, Entry::Type::kSymlink);
  EXPECT_EQ(tree->stat("src").type, Entry::Type::kDirectory);
  EXPECT_EQ(tree->stat("src/fifo").type, Entry::Type::kOther);
  EXPECT_EQ(tree->stat("src/missing.py").type, Entry::Type::kMissing);
  EXPECT_EQ(tree->stat("nodir/missing.py").type, Entry::Type::kMissing);
  // A regular file used as a directory: the path does not exist.
  EXPECT_EQ(tree->stat("src/plain.py/x").type, Entry::Type::kMissing);
  EXPECT_EQ(tree->stat("./src//plain.py").type, Entry::Type::kFile);
}

TEST(TreeStat, FinalSymlinkEscapingIsReportedNotFollowed) {
  TempDir outside;
  write_file(outside / "secret", "s\n");
  TempDir dir;
  fs::create_symlink(outside / "secret", dir / "escape");
  fs::create_symlink("does-not-exist", dir / "dangling");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->stat("escape").type, Entry::Type::kSymlink);
  EXPECT_EQ(tree->stat("dangling").type, Entry::Type::kSymlink);
}

TEST(TreeOpenFile, RegularFilesOnlyFinalSymlinkRefused) {
  TempDir outside;
  write_file(outside / "secret", "s\n");
  TempDir dir;
  write_file(dir / "lib/libx.so", "ELF?");
  fs::create_symlink("libx.so", dir / "lib/libx.so.1");
  fs::create_symlink(outside / "secret", dir / "escape");
  auto tree = open_disk_tree(dir.path().string());
  OpenFile file = tree->open_file("lib/libx.so");
  ASSERT_GE(file.fd(), 0);
  char buffer[8] = {};
  EXPECT_EQ(::pread(file.fd(), buffer, sizeof buffer, 0), 4);
  EXPECT_EQ(std::string(buffer), "ELF?");
  EXPECT_EQ(error_of([&] { tree->open_file("lib/libx.so.1"); }),
            "lib/libx.so.1: not a regular file; cannot open it");
  EXPECT_EQ(error_of([&] { tree->open_file("escape"); }), "escape: not a regular file; cannot open it");
  EXPECT_EQ(error_of([&] { tree->open_file("lib"); }), "lib: not a regular file; cannot open it");
  EXPECT_EQ(error_of([&] { tree->open_file("lib/none.so"); }),
            "lib/none.so: cannot open: No such file or directory");
  OpenFile moved = std::move(file);
  EXPECT_EQ(file.fd(), -1);
  EXPECT_GE(moved.fd(), 0);
}

TEST(TreeStat, IntermediateSymlinkInsideIsFollowed) {
  TempDir dir;
  write_file(dir / "real/sub/f.txt", "F\n");
  fs::create_directory_symlink("real", dir / "alias");
  auto tree = open_disk_tree(dir.path().string());
  Entry e = tree->stat("alias/sub/f.txt");
  EXPECT_EQ(e.type, Entry::Type::kFile);
  EXPECT_EQ(e.size, 2u);
  EXPECT_EQ(tree->read("alias/sub/f.txt"), "F\n");
}

TEST(TreeStat, IntermediateSymlinkEscapingThrows) {
  TempDir outside;
  write_file(outside / "lib/x.py", "x\n");
  TempDir dir;
  write_file(dir / "pkg/ok.py", "ok\n");
  fs::create_directory_symlink(outside / "lib", dir / "pkg/lib");
  auto tree = open_disk_tree(dir.path().string());
  std::string err = error_of([&] { tree->stat("pkg/lib/x.py"); });
  EXPECT_TRUE(contains(err, "pkg/lib/x.py: resolves outside the target through symlink 'pkg/lib'"))
      << err;
  err = error_of([&] { tree->read("pkg/lib/x.py"); });
  EXPECT_TRUE(contains(err, "resolves outside the target through symlink 'pkg/lib'")) << err;
  err = error_of([&] { tree->read_link("pkg/lib/x.py"); });
  EXPECT_TRUE(contains(err, "resolves outside the target through symlink 'pkg/lib'")) << err;
  // The same target reached through a relative link that climbs out.
  fs::create_directory_symlink("../../" + outside.path().filename().string() + "/lib",
                               dir / "pkg/rel");
  err = error_of([&] { tree->stat("pkg/rel/x.py"); });
  EXPECT_TRUE(contains(err, "resolves outside the target through symlink 'pkg/rel'")) << err;
}

TEST(TreeStat, ChainedSymlinksEscapingThrow) {
  TempDir outside;
  write_file(outside / "x.py", "x\n");
  TempDir dir;
  std::filesystem::create_directories(dir / "a");
  // a/b -> inside dir "c", and c/d -> outside: both hops are checked.
  std::filesystem::create_directories(dir / "c");
  fs::create_directory_symlink("../c", dir / "a/b");
  fs::create_directory_symlink(outside.path(), dir / "c/d");
  auto tree = open_disk_tree(dir.path().string());
  std::string err = error_of([&] { tree->stat("a/b/d/x.py"); });
  EXPECT_TRUE(contains(err, "resolves outside the target through symlink 'a/b/d'")) << err;
}

// A directory swapped for a symlink to outside the target while a run is in progress (issue 11:
// the old tree checked each component with lstat(2), then opened by path, and read outside/).
TEST(TreeRace, DirectorySwappedForSymlinkMidRunIsNeverFollowed) {
  TempDir base;
  write_file(base / "outside/t.txt", "SECRET t\n");
  write_file(base / "outside/u.txt", "SECRET u\n");
  write_file(base / "T/d/t.txt", "inside t\n");
  write_file(base / "T/d/u.txt", "inside u\n");
  auto tree = open_disk_tree(base / "T");
  EXPECT_EQ(tree->read("d/t.txt"), "inside t\n");
  fs::rename(base / "T/d", base / "T/d.real");
  fs::create_directory_symlink("../outside", base / "T/d");
  // The run goes on: whatever it reads under d/ is never outside's.
  for (const char* name : {"d/u.txt", "d/t.txt"}) {
    std::string got;
    std::string err = error_of([&] { got = tree->read(name); });
    EXPECT_EQ(got.find("SECRET"), std::string::npos) << name;
    if (err != "<no error>") EXPECT_TRUE(contains(err, "resolves outside the target")) << err;
    EXPECT_NE(tree->stat(name).type, Entry::Type::kMissing) << name;  // d.real's, still open
  }
  // A tree opened after the swap refuses the path.
  auto fresh = open_disk_tree(base / "T");
  std::string err = error_of([&] { fresh->read("d/t.txt"); });
  EXPECT_TRUE(contains(err, "d/t.txt: resolves outside the target through symlink 'd'")) << err;
  EXPECT_TRUE(contains(error_of([&] { fresh->stat("d/u.txt"); }), "resolves outside")) << err;
}

TEST(TreeStat, SymlinksToTheRootAndInsideByAbsolutePathAreFollowed) {
  TempDir dir;
  write_file(dir / "x.txt", "X\n");
  write_file(dir / "real/y.txt", "Y\n");
  fs::create_directory_symlink(".", dir / "self");
  const std::string real = std::filesystem::canonical(dir.path()).string();
  fs::create_directory_symlink(real + "/real", dir / "abs");
  fs::create_symlink(real + "/x.txt", dir / "abs-file");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->read("self/x.txt"), "X\n");
  EXPECT_EQ(tree->read("self/self/real/y.txt"), "Y\n");
  EXPECT_EQ(tree->read("abs/y.txt"), "Y\n");
  EXPECT_EQ(tree->read("abs-file"), "X\n");
  EXPECT_EQ(tree->stat("abs/y.txt").type, Entry::Type::kFile);
  EXPECT_EQ(error_of([&] { tree->read("self"); }), "self: not a regular file; cannot read it");
}

TEST(TreeStat, SymlinkLoopsEndWithAnError) {
  TempDir dir;
  fs::create_directory_symlink("b", dir / "a");
  fs::create_directory_symlink("a", dir / "b");
  fs::create_symlink("g", dir / "f");
  fs::create_symlink("f", dir / "g");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_TRUE(contains(error_of([&] { tree->stat("a/x"); }), "Too many levels of symbolic links"));
  EXPECT_TRUE(contains(error_of([&] { tree->read("f"); }), "Too many levels of symbolic links"));
  // The error names the path asked for, not the resolver's placeholder ("b/-").
  fs::create_directory_symlink("pkg", dir / "pkg");
  EXPECT_EQ(error_of([&] { tree->read("pkg/mod.py"); }),
            "pkg/mod.py: cannot resolve symlink 'pkg': Too many levels of symbolic links");
  EXPECT_EQ(error_of([&] { tree->stat("a/x"); }).rfind("a/x: ", 0), 0u);
}

TEST(TreeRead, ManyDirectoriesOutliveTheDescriptorCache) {
  TempDir dir;
  for (int i = 0; i < 300; ++i)
    write_file(dir / ("d" + std::to_string(i) + "/e/f.txt"), std::to_string(i) + "\n");
  auto tree = open_disk_tree(dir.path().string());
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 300; ++i)
      ASSERT_EQ(tree->read("d" + std::to_string(i) + "/e/f.txt"), std::to_string(i) + "\n");
}

TEST(TreeStat, InvalidPathThrows) {
  TempDir dir;
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(error_of([&] { tree->stat("../x"); }), "../x: not a relative path inside the target");
  EXPECT_EQ(error_of([&] { tree->read("/etc/passwd"); }),
            "/etc/passwd: not a relative path inside the target");
}

// --- read -------------------------------------------------------------------------------------

TEST(TreeRead, ByteExactContent) {
  TempDir dir;
  const std::string crlf_binary = std::string("a\r\nb\0c\n", 7) + "no newline";
  write_file(dir / "f.bin", crlf_binary);
  write_file(dir / "empty", "");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->read("f.bin"), crlf_binary);
  EXPECT_EQ(tree->read("empty"), "");
}

TEST(TreeRead, LargeFileAcrossManyReads) {
  TempDir dir;
  std::string big(300000, 'x');
  for (std::size_t i = 0; i < big.size(); i += 97) big[i] = '\n';
  write_file(dir / "big.txt", big);
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->read("big.txt"), big);
}

TEST(TreeRead, SizeLimit) {
  TempDir dir;
  write_file(dir / "ten", "0123456789");
  write_file(dir / "eleven", "0123456789A");
  auto tree = open_disk_tree(dir.path().string(), 10);
  EXPECT_EQ(tree->read("ten"), "0123456789");
  EXPECT_EQ(error_of([&] { tree->read("eleven"); }),
            "eleven: file is 11 bytes, larger than the limit of 10 bytes");
}

TEST(TreeRead, FifoIsRefusedWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  fs::create_symlink("pipe", dir / "to-pipe");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(error_of([&] { tree->read("pipe"); }), "pipe: not a regular file; cannot read it");
  EXPECT_EQ(error_of([&] { tree->read("to-pipe"); }),
            "to-pipe: not a regular file; cannot read it");
}

TEST(TreeRead, DirectoryIsRefused) {
  TempDir dir;
  fs::create_directories(dir / "d");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(error_of([&] { tree->read("d"); }), "d: not a regular file; cannot read it");
}

TEST(TreeRead, MissingFileNamesIt) {
  TempDir dir;
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(error_of([&] { tree->read("nope.py"); }),
            "nope.py: cannot read: No such file or directory");
  EXPECT_EQ(error_of([&] { tree->read("no/dir.py"); }),
            "no/dir.py: cannot read: No such file or directory");
}

TEST(TreeRead, FinalSymlinkInsideIsFollowed) {
  TempDir dir;
  write_file(dir / "sub/target.txt", "T\n");
  fs::create_symlink("sub/target.txt", dir / "link");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->read("link"), "T\n");
}

TEST(TreeRead, FinalSymlinkEscapingIsRefused) {
  TempDir outside;
  write_file(outside / "secret", "s\n");
  TempDir dir;
  fs::create_symlink(outside / "secret", dir / "escape");
  fs::create_symlink("../" + outside.path().filename().string() + "/secret", dir / "rel-escape");
  auto tree = open_disk_tree(dir.path().string());
  std::string err = error_of([&] { tree->read("escape"); });
  EXPECT_TRUE(contains(err, "escape: resolves outside the target through symlink 'escape'")) << err;
  err = error_of([&] { tree->read("rel-escape"); });
  EXPECT_TRUE(contains(err, "resolves outside the target through symlink 'rel-escape'")) << err;
}

TEST(TreeRead, DanglingSymlinkNamesIt) {
  TempDir dir;
  fs::create_symlink("gone", dir / "dangling");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(error_of([&] { tree->read("dangling"); }),
            "dangling: cannot read through symlink: No such file or directory");
}

// --- read_link --------------------------------------------------------------------------------

TEST(TreeReadLink, TargetsAreReturnedVerbatim) {
  TempDir dir;
  write_file(dir / "f", "f\n");
  fs::create_symlink("f", dir / "short");
  fs::create_symlink("/absolute/elsewhere", dir / "abs");
  std::string long_target(1000, 'x');
  fs::create_symlink(long_target, dir / "long");
  auto tree = open_disk_tree(dir.path().string());
  EXPECT_EQ(tree->read_link("short"), "f");
  EXPECT_EQ(tree->read_link("abs"), "/absolute/elsewhere");
  EXPECT_EQ(tree->read_link("long"), long_target);
  EXPECT_EQ(error_of([&] { tree->read_link("f"); }), "f: not a symbolic link");
  EXPECT_EQ(error_of([&] { tree->read_link("missing"); }),
            "missing: cannot read symlink: No such file or directory");
}

// --- never writes -----------------------------------------------------------------------------

TEST(TreeReadOnly, WorksOnReadOnlyTree) {
  TempDir dir;
  write_file(dir / "ro/f.txt", "R\n");
  fs::permissions(dir / "ro/f.txt", fs::perms::owner_read, fs::perm_options::replace);
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec,
                  fs::perm_options::replace);
  struct stat before {};
  ASSERT_EQ(::stat((dir / "ro/f.txt").c_str(), &before), 0);
  auto tree = open_disk_tree(dir / "ro");
  EXPECT_EQ(tree->read("f.txt"), "R\n");
  EXPECT_EQ(tree->stat("f.txt").type, Entry::Type::kFile);
  struct stat after {};
  ASSERT_EQ(::stat((dir / "ro/f.txt").c_str(), &after), 0);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(before.st_mode, after.st_mode);
}

// --- blob ids ---------------------------------------------------------------------------------

TEST(TreeBlob, KnownIds) {
  EXPECT_EQ(git_blob_id(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_EQ(git_blob_id("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(git_blob_id(std::string_view("a\0b", 3)).size(), 40u);
}

TEST(TreeBlob, MatchesGitHashObject) {
  TempDir dir;
  const std::string content = std::string("line 1\r\nline 2\n\0binary", 22) + "\xff\xfe";
  write_file(dir / "f", content);
  test::RunResult r = test::run_shell("git hash-object f", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(git_blob_id(content) + "\n", r.out);
}

TEST(TreeBlob, LooksBinary) {
  EXPECT_FALSE(looks_binary(""));
  EXPECT_FALSE(looks_binary("text\n\xff\xfe utf-16 without NUL is text\n"));
  EXPECT_TRUE(looks_binary(std::string("a\0b", 3)));
  std::string late(8000, 'a');
  late += '\0';
  EXPECT_FALSE(looks_binary(late));  // NUL at byte 8001: git looks at the first 8000 only
  late[7999] = '\0';
  EXPECT_TRUE(looks_binary(late));
}

}  // namespace
}  // namespace sm120check

namespace sm120check {
namespace {

TEST(TreeList, SortedTypedAndNeverThroughASymlink) {
  test::TempDir dir;
  test::write_file(dir.path() / "b.txt", "x");
  test::write_file(dir.path() / "a/inner.py", "y");
  std::filesystem::create_directory_symlink(dir.path() / "a", dir.path() / "link");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
  const std::vector<Tree::DirEntry> root = tree->list("");
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root[0].name, "a");
  EXPECT_EQ(root[0].type, Entry::Type::kDirectory);
  EXPECT_EQ(root[1].name, "b.txt");
  EXPECT_EQ(root[1].type, Entry::Type::kFile);
  EXPECT_EQ(root[2].name, "fifo");
  EXPECT_EQ(root[2].type, Entry::Type::kOther);
  EXPECT_EQ(root[3].name, "link");
  EXPECT_EQ(root[3].type, Entry::Type::kSymlink);
  ASSERT_EQ(tree->list("a").size(), 1u);
  EXPECT_EQ(tree->list("a")[0].name, "inner.py");
  // The symlinked folder is not listed through, a file or a missing path is no directory.
  EXPECT_THROW(tree->list("link"), Error);
  EXPECT_THROW(tree->list("b.txt"), Error);
  EXPECT_THROW(tree->list("nope"), Error);
}

// The guarded mapping shared by `kernels` and the git index reader: a file truncated after it
// was mapped reads zeros past its new end inside guarded(), and shrank() says so; without the
// guard such a read dies of SIGBUS (KernelListingDeathTest.AnotherSigbusStillKills).
TEST(MappedFile, AFileThatShrinksReadsZerosAndSaysSo) {
  test::TempDir dir;
  const std::string path = dir / "index";
  test::write_file(path, std::string(3 * 4096, 'x'));
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  detail::MappedFile map(fd, 3 * 4096, path);
  ::close(fd);
  const auto sum = [](const unsigned char* d, std::size_t n) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += d[i];
    return total;
  };
  EXPECT_EQ(map.guarded(sum), std::size_t{3 * 4096} * 'x');
  EXPECT_FALSE(map.shrank());
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  EXPECT_EQ(map.guarded(sum), std::size_t{4096} * 'x');  // the first page is still the file's
  EXPECT_TRUE(map.shrank());
}

// --- DirectoryWalk ----------------------------------------------------------------------------

/// Open descriptors of this process (/proc/self/fd), or 0 when that cannot be read.
std::size_t open_descriptors() {
  std::error_code ec;
  std::size_t n = 0;
  for (fs::directory_iterator it("/proc/self/fd", ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    ++n;
  return n;
}

// Hostile review #9: `kernels DIR` and `scan` walked by paths, so each folder cost its depth
// (memory and time quadratic in a chain's depth, paths past PATH_MAX unreadable). A comb of
// 3000 levels (each holds "a", the chain going on, and the leaf folder "z"): every folder is
// listed with its right path and depth, at most kMaxOpenDirectories descriptors are held, and
// the leaves, entered after the chain below them, are reached through the reopened parents.
TEST(DirectoryWalk, DeepCombIsWalkedWholeWithBoundedDescriptors) {
  TempDir dir;
  constexpr std::size_t kLevels = 3000;
  {
    int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    for (std::size_t k = 0; k < kLevels; ++k) {
      ASSERT_EQ(::mkdirat(fd, "z", 0755), 0);
      ASSERT_EQ(::mkdirat(fd, "a", 0755), 0);
      const int next = ::openat(fd, "a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      ::close(fd);
      fd = next;
      ASSERT_GE(fd, 0);
    }
    ::close(fd);
  }
  const std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
  const std::size_t before = open_descriptors();
  std::size_t most = 0, visited = 0, leaves = 0;
  std::string expected_leaf_parent;
  DirectoryWalk walk(*tree, "");
  while (walk.next()) {
    ASSERT_EQ(walk.error(), "") << walk.path().size();
    ++visited;
    most = std::max(most, open_descriptors());
    const std::string& path = walk.path();
    if (walk.name() == "z") {
      // a/a/.../a/z: depth d has d-1 "a/" before it, and leaves come deepest first.
      ASSERT_EQ(path.size(), 2 * walk.depth() - 1);
      ASSERT_EQ(path.substr(walk.depth() == 1 ? 0 : path.size() - 2), walk.depth() == 1 ? "z" : "/z");
      ASSERT_EQ(walk.depth(), kLevels - leaves);
      ++leaves;
      ASSERT_TRUE(walk.entries().empty());
    } else if (!path.empty()) {
      ASSERT_EQ(walk.name(), "a");
      ASSERT_EQ(path.size(), 2 * walk.depth() - 1);
    }
    for (std::size_t k = 0; k < walk.entries().size(); ++k)
      if (walk.entries()[k].type == Entry::Type::kDirectory) walk.enter(k);
  }
  EXPECT_EQ(visited, 1 + 2 * kLevels);
  EXPECT_EQ(leaves, kLevels);
  EXPECT_TRUE(walk.lost().empty());
  if (before > 0) EXPECT_LE(most, before + DirectoryWalk::kMaxOpenDirectories + 2);
  EXPECT_EQ(open_descriptors(), before);
  test::remove_deep(dir.path());
}

// A walk that enters a symlink's destination by its path (scan follows a symlink to a folder
// inside TARGET that way) comes back to the folder it left.
TEST(DirectoryWalk, EnterPathComesBackToTheFolderItLeft) {
  TempDir dir;
  fs::create_directories(dir.path() / "x/y");
  fs::create_directories(dir.path() / "b/c");
  const std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
  DirectoryWalk walk(*tree, "");
  std::vector<std::string> seen;
  while (walk.next()) {
    seen.push_back(walk.path() + "@" + std::to_string(walk.depth()) + ":" + std::string(walk.name()));
    if (walk.path().empty()) {
      walk.enter_path("x/y");
      walk.enter(0);  // b
    } else if (walk.path() == "b") {
      walk.enter(0);
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"@0:", "x/y@1:y", "b@1:b", "b/c@2:c"}));
  DirectoryWalk missing(*tree, "nope");
  ASSERT_TRUE(missing.next());
  EXPECT_NE(missing.error(), "");
  EXPECT_FALSE(missing.next());
}

}  // namespace
}  // namespace sm120check
