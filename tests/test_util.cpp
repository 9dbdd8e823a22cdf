#include "test_util.hpp"

#include "sm120check/patch.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

extern char** environ;

namespace sm120check::test {

TempDir::TempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "sm120check-test-XXXXXX").string();
  char* made = ::mkdtemp(templ.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  // Tests make files read-only on purpose; restore write bits so removal works.
  for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_symlink())
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ec);
  }
  std::filesystem::remove_all(path_, ec);
}

void write_file(const std::filesystem::path& path, std::string_view content) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

/// Runs `argv`; `seconds` > 0 limits its run (SIGKILL when over).
RunResult spawn_capture(const std::vector<std::string>& argv, std::string_view stdin_data,
                        const std::vector<std::string>& extra_env,
                        const std::filesystem::path& cwd, double seconds = 0) {
  RunResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) return result;

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const std::string& kv : extra_env) {
    std::string name = kv.substr(0, kv.find('='));
    std::erase_if(env_strings,
                  [&](const std::string& s) { return s.rfind(name + "=", 0) == 0; });
    env_strings.push_back(kv);
  }
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argvp;
  for (std::string& s : args) argvp.push_back(s.data());
  argvp.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      ::close(fd);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::execve(argvp[0], argvp.data(), envp.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::signal(SIGPIPE, SIG_IGN);

  std::size_t written = 0;
  if (stdin_data.empty()) {
    ::close(in_pipe[1]);
    in_pipe[1] = -1;
  }
  struct pollfd fds[3];
  bool out_open = true, err_open = true;
  char buf[65536];
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(seconds > 0 ? seconds : 0));
  while (out_open || err_open || in_pipe[1] >= 0) {
    int wait_ms = -1;
    if (seconds > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        ::kill(pid, SIGKILL);
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left);
    }
    int n = 0;
    int out_idx = -1, err_idx = -1, in_idx = -1;
    if (out_open) { fds[n] = {out_pipe[0], POLLIN, 0}; out_idx = n++; }
    if (err_open) { fds[n] = {err_pipe[0], POLLIN, 0}; err_idx = n++; }
    if (in_pipe[1] >= 0) { fds[n] = {in_pipe[1], POLLOUT, 0}; in_idx = n++; }
    if (::poll(fds, static_cast<nfds_t>(n), wait_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int idx, int fd, std::string& sink, bool& open) {
      if (idx < 0 || fds[idx].revents == 0) return;
      ssize_t r = ::read(fd, buf, sizeof buf);
      if (r <= 0) open = false;
      else sink.append(buf, static_cast<std::size_t>(r));
    };
    drain(out_idx, out_pipe[0], result.out, out_open);
    drain(err_idx, err_pipe[0], result.err, err_open);
    if (in_idx >= 0 && fds[in_idx].revents != 0) {
      ssize_t w = ::write(in_pipe[1], stdin_data.data() + written, stdin_data.size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w <= 0 || written == stdin_data.size()) {
        ::close(in_pipe[1]);
        in_pipe[1] = -1;
      }
    }
  }
  if (in_pipe[1] >= 0) ::close(in_pipe[1]);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace

namespace {

/// The TARGET a run of `args` must leave unchanged: the last argument, when it is a directory,
/// of verify, log, scan and apply --dry-run (which never write under TARGET); empty otherwise.
std::filesystem::path read_only_target(const std::vector<std::string>& args) {
  if (args.size() < 2) return {};
  const bool dry_run = std::find(args.begin(), args.end(), "--dry-run") != args.end();
  if (args[0] != "verify" && args[0] != "log" && args[0] != "scan" &&
      !(args[0] == "apply" && dry_run))
    return {};
  if (args[0] != "scan" && args.size() < 3) return {};
  std::error_code ec;
  if (!std::filesystem::is_directory(args.back(), ec) ||
      std::filesystem::is_symlink(args.back(), ec))
    return {};
  return args.back();
}

/// Fails the test when `after` differs from `before` (tree_state() of `root`), naming every
/// entry that changed ("." for the root itself).
void expect_same_state(const std::map<std::string, std::string>& before,
                       const std::map<std::string, std::string>& after,
                       const std::filesystem::path& root, const RunResult& r) {
  if (after == before) return;
  std::string changed;
  const auto add = [&](const std::string& path, const char* how) {
    changed += (changed.empty() ? "'" : ", '") + (path.empty() ? "." : path) + "'" + how;
  };
  for (const auto& [path, value] : before) {
    auto it = after.find(path);
    if (it == after.end())
      add(path, " (removed)");
    else if (it->second != value)
      add(path, "");
  }
  for (const auto& [path, value] : after)
    if (before.count(path) == 0) add(path, " (created)");
  ADD_FAILURE() << "the run changed " << changed << " under " << root << "\nstderr: " << r.err;
}

}  // namespace

RunResult run_sm120check(const std::vector<std::string>& args, std::string_view stdin_data,
                         const std::vector<std::string>& env) {
  std::vector<std::string> argv{SM120CHECK_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> full_env{"NO_COLOR=1"};
  full_env.insert(full_env.end(), env.begin(), env.end());
  // Every end-to-end run of a command that never writes checks that TARGET is unchanged.
  const std::filesystem::path target = read_only_target(args);
  std::map<std::string, std::string> before;
  if (!target.empty()) before = tree_state(target);
  RunResult r = spawn_capture(argv, stdin_data, full_env, {});
  if (!target.empty()) expect_same_state(before, tree_state(target), target, r);
  return r;
}

RunResult run_sm120check_within(double seconds, const std::vector<std::string>& args,
                                std::string_view stdin_data) {
  std::vector<std::string> argv{SM120CHECK_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_capture(argv, stdin_data, {"NO_COLOR=1"}, {}, seconds);
}

std::map<std::string, std::string> tree_state(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> state;
  const auto add = [&](const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      ADD_FAILURE() << "cannot lstat " << path;
      return;
    }
    std::string value = std::to_string(st.st_mode) + " size " + std::to_string(st.st_size) +
                        " mtime " + std::to_string(st.st_mtim.tv_sec) + "." +
                        std::to_string(st.st_mtim.tv_nsec) + " ctime " +
                        std::to_string(st.st_ctim.tv_sec) + "." +
                        std::to_string(st.st_ctim.tv_nsec);
    if (S_ISREG(st.st_mode)) {
      value += " bytes " + read_file(path);
    } else if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      value += " -> " + fs::read_symlink(path, ec).string();
    }
    const std::string key = path == root ? std::string() : fs::relative(path, root).string();
    state[key] = std::move(value);
  };
  add(root);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    add(it->path());
  EXPECT_FALSE(ec) << "cannot walk " << root << ": " << ec.message();
  return state;
}

RunResult run_leaving_unchanged(const std::filesystem::path& root,
                                const std::vector<std::string>& args, std::string_view stdin_data,
                                double seconds) {
  const std::map<std::string, std::string> before = tree_state(root);
  RunResult r = run_sm120check_within(seconds, args, stdin_data);
  EXPECT_FALSE(r.timed_out) << "still running after " << seconds << " s";
  expect_same_state(before, tree_state(root), root, r);
  return r;
}

void make_deep_chain(const std::filesystem::path& root, const std::string& name, std::size_t depth,
                     const std::map<std::string, std::string>& files) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << root;
  for (std::size_t k = 0; k < depth; ++k) {
    ASSERT_EQ(::mkdirat(fd, name.c_str(), 0755), 0) << "level " << k << ": " << std::strerror(errno);
    const int next = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    fd = next;
    ASSERT_GE(fd, 0) << "level " << k;
  }
  for (const auto& [rel, content] : files) {
    int dir = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    std::string rest = rel;
    for (std::size_t slash; (slash = rest.find('/')) != std::string::npos;) {
      const std::string part = rest.substr(0, slash);
      rest = rest.substr(slash + 1);
      ::mkdirat(dir, part.c_str(), 0755);  // may exist
      const int next = ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      ::close(dir);
      dir = next;
      ASSERT_GE(dir, 0) << rel;
    }
    const int out = ::openat(dir, rest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ::close(dir);
    ASSERT_GE(out, 0) << rel;
    ASSERT_EQ(::write(out, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    ::close(out);
  }
  ::close(fd);
}

void remove_deep(const std::filesystem::path& root) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  std::vector<std::string> names;  // of the folders entered below root
  for (;;) {
    ::fchmod(fd, 0700);
    DIR* dir = ::fdopendir(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
    if (dir == nullptr) break;
    std::string sub;
    while (const dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st {};
      if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
        if (::unlinkat(fd, name.c_str(), AT_REMOVEDIR) != 0 && sub.empty()) sub = name;
      } else {
        ::unlinkat(fd, name.c_str(), 0);
      }
    }
    ::closedir(dir);
    if (!sub.empty()) {  // a folder not empty: empty it first
      const int next = ::openat(fd, sub.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (next < 0) break;
      ::close(fd);
      fd = next;
      names.push_back(sub);
      continue;
    }
    if (names.empty()) break;
    const int up = ::openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    fd = up;
    if (fd < 0) return;
    ::unlinkat(fd, names.back().c_str(), AT_REMOVEDIR);
    names.pop_back();
  }
  if (fd >= 0) ::close(fd);
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
}

RunResult run_shell(const std::string& command, const std::filesystem::path& cwd) {
  return spawn_capture({"/bin/sh", "-c", command}, {}, {}, cwd);
}

bool git_init_commit(const std::filesystem::path& dir) {
  std::string q = "'" + dir.string() + "'";
  RunResult r = run_shell(
      "export HOME=" + q + "/.. GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e "
      "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; git init -q -b main . && "
      "git config core.autocrlf false && git add -A && git commit -q -m init",
      dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0;
}

HunkMatch match_one_hunk(const std::string& file, std::string_view hunk, std::string_view name) {
  const std::string diff =
      "--- a/" + std::string(name) + "\n+++ b/" + std::string(name) + "\n" + std::string(hunk);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const FileText text(file);
  return match_hunks(text, patches.at(0).files.at(0).hunks, {}).at(0);
}

}  // namespace sm120check::test
