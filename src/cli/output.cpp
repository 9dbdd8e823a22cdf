// --format/--color/--output/--quiet, and where a report goes (see output.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>

#include "output.hpp"
#include "sm120check/trace.hpp"
#include "sm120check/write.hpp"

namespace sm120check::cli {
namespace {

/// "cannot write FILE: WHY" with errno's words.
Error write_error(const std::string& file, int error) {
  return Error("cannot write '" + file + "': " + std::strerror(error));
}

/// The directory part of `file` ("." when it has none) and its name.
std::pair<std::string, std::string> split_path(const std::string& file) {
  const std::size_t slash = file.rfind('/');
  if (slash == std::string::npos) return {".", file};
  return {slash == 0 ? "/" : file.substr(0, slash), file.substr(slash + 1)};
}

}  // namespace

void add_output_options(CLI::App& cmd, OutputOptions& output, Formats formats) {
  static const std::map<std::string, OutputFormat> kTextJson{{"text", OutputFormat::kText},
                                                             {"json", OutputFormat::kJson}};
  static const std::map<std::string, OutputFormat> kAll{{"text", OutputFormat::kText},
                                                        {"json", OutputFormat::kJson},
                                                        {"junit", OutputFormat::kJunit},
                                                        {"github", OutputFormat::kGithub},
                                                        {"sarif", OutputFormat::kSarif}};
  static const std::map<std::string, ColorMode> kColors{
      {"auto", ColorMode::kAuto}, {"always", ColorMode::kAlways}, {"never", ColorMode::kNever}};
  if (formats == Formats::kAll) {
    cmd.add_option("--format", output.format,
                   "Output format: text (for people, the default), json (for scripts), junit "
                   "(JUnit XML), github (GitHub Actions annotations and job summary) or sarif "
                   "(SARIF 2.1.0); see docs/formats.md")
        ->transform(choice(kAll, "text, json, junit, github or sarif"))
        ->type_name("text|json|junit|github|sarif");
  } else {
    cmd.add_option("--format", output.format,
                   "Output format: text (for people, the default) or json (for scripts)")
        ->transform(choice(kTextJson, "text or json"))
        ->type_name("text|json");
  }
  cmd.add_option("--color", output.color,
                 "Colour the text output: auto (the default: when stdout is a terminal and "
                 "NO_COLOR is unset; CLICOLOR_FORCE=1 forces, NO_COLOR wins), always or never")
      ->transform(choice(kColors, "auto, always or never"))
      ->type_name("auto|always|never");
  cmd.add_option("--output", output.file,
                 "Write the report to FILE (atomically: a temporary file renamed over it) and "
                 "print a one-line summary instead; - is standard output")
      ->type_name("FILE");
  cmd.add_flag("-q,--quiet", output.quiet,
               "Print only errors: no report on standard output (it still goes to --output "
               "FILE), no summary, no warnings or notes; the exit code is the same");
}

ReportSink::ReportSink(const OutputOptions& options) : options_(options) {
  if (options_.file.empty() || options_.file == "-") return;
  const std::string& file = options_.file;
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("--output '" + file + "' is a directory");
  if (::stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe a reader waits on), or a symlink
    // to one: written in place, as a shell's redirection writes it. Only a regular file is
    // replaced (renaming over /dev/full replaced the device node with a file).
    fd_ = ::open(file.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) throw write_error(file, errno);
    return;
  }
  const auto [dir, name] = split_path(file);
  if (name.empty()) throw Error("--output '" + file + "' names no file");
  std::string temp = (dir == "/" ? "" : dir) + "/." + name + ".tmp-XXXXXX";
  fd_ = ::mkstemp(temp.data());
  if (fd_ < 0 && errno == ENOENT)  // what is missing is the folder (new-user review fu30)
    throw Error("cannot write '" + file + "': folder '" + dir + "' does not exist (create it first)");
  if (fd_ < 0) throw write_error(file, errno);
  temp_ = std::move(temp);
}

ReportSink::~ReportSink() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

bool ReportSink::color() const {
  if (options_.format != OutputFormat::kText) return false;
  if (fd_ >= 0 || options_.quiet) return options_.color == ColorMode::kAlways;
  return use_color(options_.color);
}

bool ReportSink::write(std::string_view piece) {
  if (fd_ >= 0) {
    if (!write_all(fd_, piece)) throw write_error(options_.file, errno);
    return true;
  }
  if (options_.quiet) return true;
  return write_stdout(piece);  // (a copy of a 49 KB report was 12 fresh pages)
}

void ReportSink::finish(std::string_view summary) {
  if (fd_ < 0) return;
  const std::string& file = options_.file;
  if (temp_.empty()) {  // written in place (not a regular file): nothing to rename
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) throw write_error(file, errno);
    if (!options_.quiet)
      write_stdout(std::string(summary) + (summary.empty() ? "" : " ") + "(" +
                   std::string(format_name(options_.format)) + " report: " +
                   escape_for_terminal(file) + ")\n");
    return;
  }
  // The mode a new file gets (0666 less the umask), or the one FILE has.
  mode_t mode = 0;
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd_, mode) != 0 || ::fsync(fd_) != 0) throw write_error(file, errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) throw write_error(file, errno);
  if (::rename(temp_.c_str(), file.c_str()) != 0) throw write_error(file, errno);
  temp_.clear();
  // The rename itself reaches the disk with the directory (best effort).
  const int dir = ::open(split_path(file).first.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  if (!options_.quiet)
    write_stdout(std::string(summary) + (summary.empty() ? "" : " ") + "(" +
                 std::string(format_name(options_.format)) + " report: " +
                 escape_for_terminal(file) + ")\n");
}

namespace {
std::int64_t g_main_started = 0;  // note_main_started()
std::int64_t g_main_faults = 0;
}  // namespace

void note_main_started(std::int64_t ns, std::int64_t faults) {
  g_main_started = ns;
  g_main_faults = faults;
}

int exit_now(int code) {
  if (g_main_started != 0) {
    trace::record("main", g_main_started, trace::now_ns(), trace::thread_faults() - g_main_faults);
    trace::write();
    g_main_started = 0;  // once: under AddressSanitizer main() calls it again
  }
#if defined(__SANITIZE_ADDRESS__)
  return code;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return code;
#endif
#endif
  std::cout.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

void append_github_step_summary(const std::string& markdown) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (path == nullptr || *path == '\0') return;
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  const bool ok = fd >= 0 && write_all(fd, markdown);
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!ok)
    std::cerr << "sm120check: warning: cannot append the job summary to GITHUB_STEP_SUMMARY '"
              << escape_for_terminal(path) << "': " << std::strerror(error) << "\n";
}

CiContext ci_context(const std::string& target, std::chrono::steady_clock::time_point started) {
  CiContext context;
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) != nullptr) context.cwd = cwd;
  context.path_prefix = report_path_prefix(target, context.cwd);
  context.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return context;
}

}  // namespace sm120check::cli
