// Reading the PATCH arguments (see inputs.hpp).
#include "inputs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "sm120check/error.hpp"
#include "sm120check/report.hpp"

namespace sm120check::cli {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

/// Start of the message of too_large().
constexpr std::string_view kPatchTooLarge = "patch is larger than the limit of ";

Error too_large(const std::string& source) {
  return Error(source, 0, fmt::format("{}{} bytes", kPatchTooLarge, kMaxPatchSize));
}

/// Reads all of `fd` (a file, a pipe or a terminal), at most kMaxPatchSize bytes. `expected`:
/// the size a regular file has (read into one buffer of that size, the text's only copy), 0
/// when unknown.
std::string read_all(int fd, const std::string& source, std::size_t expected = 0) {
  std::string text;
  constexpr std::size_t kChunk = 65536;
  text.reserve(expected + 1);  // +1: the end of the file is seen without growing
  for (;;) {
    if (text.size() == text.capacity()) text.reserve(2 * text.capacity() + kChunk);
    const std::size_t at = text.size();
    text.resize(text.capacity());  // read straight into the string
    const ssize_t n = ::read(fd, text.data() + at, text.size() - at);
    if (n < 0) {
      text.resize(at);
      if (errno == EINTR) continue;
      throw Error(source, 0, "cannot read patch: " + errno_text(errno));
    }
    text.resize(at + static_cast<std::size_t>(n));
    if (n == 0) return text;
    if (text.size() > kMaxPatchSize) throw too_large(source);
  }
}

std::string read_patch_file(const std::string& path) {
  // Blocking open on purpose: a patch may come from a pipe (`<(git diff)` gives /dev/fd/N).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(path, 0, "cannot open patch: " + errno_text(errno));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular && static_cast<std::uint64_t>(st.st_size) > kMaxPatchSize) {
    ::close(fd);
    throw too_large(path);
  }
  try {
    std::string text = read_all(fd, path, regular ? static_cast<std::size_t>(st.st_size) : 0);
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

bool has_patch_suffix(std::string_view name) {
  auto ends_with = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  return ends_with(".patch") || ends_with(".diff");
}

/// The regular `*.patch` / `*.diff` files of directory `dir`, as "DIR/NAME", sorted by name.
std::vector<std::string> list_patch_dir(const std::string& dir) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) throw Error(dir, 0, "cannot read patch directory: " + errno_text(errno));
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(handle)) {
    std::string name = entry->d_name;
    if (has_patch_suffix(name)) names.push_back(std::move(name));
    errno = 0;
  }
  int err = errno;
  ::closedir(handle);
  if (err != 0) throw Error(dir, 0, "cannot read patch directory: " + errno_text(err));
  std::sort(names.begin(), names.end());
  std::string prefix = dir;
  if (prefix.back() != '/') prefix += '/';
  std::vector<std::string> paths;
  for (const std::string& name : names) {
    std::string path = prefix + name;
    struct stat st {};
    // Follows symlinks: a link to a patch counts; subdirectories named *.patch do not.
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) paths.push_back(std::move(path));
  }
  if (paths.empty()) throw Error(dir, 0, "directory holds no *.patch or *.diff file");
  return paths;
}

}  // namespace

std::vector<PatchInput> read_patch_inputs(const std::vector<std::string>& args, BadInput bad) {
  // Checked before anything is read, so that no input is consumed for nothing.
  if (std::count(args.begin(), args.end(), "-") > 1)
    throw Error("-", 0, "standard input can be given only once");
  std::vector<PatchInput> inputs;
  // Reads one input with `read`; an input over the size limit is kept as an error entry when
  // `bad` says so.
  const auto add = [&](std::string source, bool from_directory, const auto& read) {
    try {
      auto text = std::make_shared<const std::string>(read());
      inputs.push_back({std::move(source), std::move(text), from_directory, std::nullopt});
    } catch (const Error& e) {
      if (bad == BadInput::kThrow || !e.message().starts_with(kPatchTooLarge)) throw;
      inputs.push_back(
          {std::move(source), std::make_shared<const std::string>(), from_directory, e});
    }
  };
  for (const std::string& arg : args) {
    if (arg == "-") {
      add("-", false, [] { return read_all(STDIN_FILENO, "-"); });
      continue;
    }
    if (arg.empty()) throw Error("patch path is empty");
    struct stat st {};
    if (::stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      for (std::string& path : list_patch_dir(arg))
        add(path, true, [&path] { return read_patch_file(path); });
      continue;
    }
    add(arg, false, [&arg] { return read_patch_file(arg); });
  }
  return inputs;
}

namespace {

/// Whether a file of a PATCH directory that holds no patch is a series' cover letter, as `git
/// format-patch --cover-letter` writes it: named *cover-letter*, or its Subject's tag numbered
/// 0 ("[PATCH 0/3]", "[PATCH v2 00/12]"). Any other such file (a numbered patch whose diff was
/// lost: "[PATCH 2/2]") is an error, not skipped: a series read `applied`, exit 0, without one
/// of its fixes (hostile review hr25).
bool looks_like_cover_letter(std::string_view source, std::string_view text) {
  const std::size_t slash = source.rfind('/');
  if (source.substr(slash == std::string_view::npos ? 0 : slash + 1).find("cover-letter") !=
      std::string_view::npos)
    return true;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line == "\r") break;  // the end of the mail headers
    if (!line.starts_with("Subject:")) continue;
    const std::size_t open = line.find('['), close = line.find(']', open);
    if (open == std::string_view::npos || close == std::string_view::npos) return false;
    const std::string_view tag = line.substr(open + 1, close - open - 1);
    const std::size_t of = tag.rfind('/');
    if (of == std::string_view::npos) return false;
    std::size_t first = of;
    while (first > 0 && tag[first - 1] >= '0' && tag[first - 1] <= '9') --first;
    return first < of && tag.substr(first, of - first).find_first_not_of('0') == std::string_view::npos;
  }
  return false;
}

}  // namespace

std::vector<Patch> parse_inputs(const std::vector<PatchInput>& inputs, BadInput bad) {
  std::vector<Patch> patches;
  for (const PatchInput& input : inputs) {
    std::vector<Patch> parsed;
    try {
      if (input.error) throw *input.error;
      parsed = bad == BadInput::kReport ? parse_patches_keeping_errors(input.text, input.source)
                                        : parse_patches(input.text, input.source);
    } catch (const Error& e) {
      if (input.from_directory && e.message().starts_with(kNoPatchFound) &&
          looks_like_cover_letter(input.source, input.text ? *input.text : std::string())) {
        std::cerr << "sm120check: warning: " << escape_for_terminal(input.source)
                  << ": no patch found (a cover letter?); skipped\n";
        continue;
      }
      if (bad == BadInput::kThrow) throw;
      Patch entry;  // the other inputs are still judged; this one is reported as an error
      entry.source = input.source;
      entry.patch_line = e.line();
      entry.error = e.message();
      patches.push_back(std::move(entry));
      continue;
    }
    patches.insert(patches.end(), std::make_move_iterator(parsed.begin()),
                   std::make_move_iterator(parsed.end()));
  }
  return patches;
}

}  // namespace sm120check::cli
