// A file's old and new content as a `git diff` (see diff.hpp). libgit2 computes the hunks (or the
// binary patch); the header is written here, as git's diff.c writes it, because libgit2 knows
// neither the modes nor the paths' roles (added, deleted, renamed) of two plain buffers.
#include "sm120check/diff.hpp"

#include <fmt/format.h>

#include <memory>

#include "../git/libgit2.hpp"
#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

/// `prefix` + `name` as git writes a path in a header (quote.c, quote_c_style with
/// core.quotePath on): as is, or in double quotes with C escapes when it holds '"', '\\', a
/// control byte, DEL or a byte of 0x80 or more.
std::string quote_path(std::string_view prefix, std::string_view name) {
  bool plain = true;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) plain = false;
  }
  std::string out(prefix);
  if (plain) return out.append(name);
  out.insert(0, 1, '"');
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c >= 0x7f)
          out += fmt::format("\\{:03o}", c);
        else
          out += ch;
    }
  }
  out += '"';
  return out;
}

/// What libgit2 printed after its header: from the first hunk ("@@ "), "GIT binary patch" or
/// "Binary files" line to the end; empty when there is none (same content, or an empty file).
std::string_view body_of(std::string_view printed) {
  for (std::size_t pos = 0; pos < printed.size();) {
    const std::string_view line = printed.substr(pos);
    if (line.starts_with("@@ ") || line.starts_with("GIT binary patch") ||
        line.starts_with("Binary files "))
      return line;
    const std::size_t newline = printed.find('\n', pos);
    if (newline == std::string_view::npos) break;
    pos = newline + 1;
  }
  return {};
}

/// libgit2's rendering of `old_data` -> `new_data` (nullptr: no file on that side).
std::string libgit2_patch(const char* old_data, std::size_t old_size, const char* new_data,
                          std::size_t new_size, unsigned context, std::string_view path) {
  const git::Libgit2& lib = git::libgit2();
  auto fail = [&](const char* what) {
    return Error(std::string(path), 0,
                 fmt::format("{}: {}", what, git::last_error_message("unknown libgit2 error")));
  };
  git_diff_options options;
  if (lib.git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION) < 0)
    throw fail("cannot set up a diff");
  options.flags |= GIT_DIFF_SHOW_BINARY;  // a binary patch git apply takes, not "Binary files"
  options.context_lines = context;
  // The names given here only reach libgit2's header, which is replaced.
  git_patch* raw = nullptr;
  if (lib.git_patch_from_buffers(&raw, old_data, old_size, "file", new_data, new_size, "file",
                                 &options) < 0)
    throw fail("cannot diff");
  const std::unique_ptr<git_patch, decltype(lib.git_patch_free)> patch(raw, lib.git_patch_free);
  git_buf buf{};
  if (lib.git_patch_to_buf(&buf, patch.get()) < 0) throw fail("cannot print the diff");
  std::string printed(buf.ptr != nullptr ? buf.ptr : "", buf.size);
  lib.git_buf_dispose(&buf);
  return printed;
}

/// "\t" after a ---/+++ name holding a space, as git writes it (diff.c), so that the name's end
/// is not mistaken for a timestamp.
std::string_view name_end(std::string_view path) {
  return path.find(' ') != std::string_view::npos ? "\t" : "";
}

}  // namespace

std::string unified_diff(std::string_view old_path, std::string_view new_path,
                         std::string_view old_content, std::string_view new_content,
                         unsigned context, std::optional<std::uint32_t> old_mode,
                         std::optional<std::uint32_t> new_mode) {
  const bool added = old_path == kDevNull;
  const bool deleted = new_path == kDevNull;
  const std::string_view path = added ? new_path : old_path;  // the one named in errors
  if ((added && deleted) || old_path.empty() || new_path.empty())
    throw Error(std::string(path), 0, "a diff needs a path on each side and a file on one");
  if (added && !old_content.empty())
    throw Error(std::string(path), 0, "an added file (old path /dev/null) has no old content");
  if (deleted && !new_content.empty())
    throw Error(std::string(path), 0, "a deleted file (new path /dev/null) has no new content");
  const bool renamed = !added && !deleted && old_path != new_path;
  const bool mode_changed = !added && !deleted && new_mode && new_mode != old_mode;
  const bool same_content = !added && !deleted && old_content == new_content;
  if (same_content && !renamed && !mode_changed) return {};

  // A side that exists is never a null pointer (libgit2 reads null as "no file").
  const char* old_data = added ? nullptr : old_content.data() ? old_content.data() : "";
  const char* new_data = deleted ? nullptr : new_content.data() ? new_content.data() : "";
  const std::string printed = same_content ? std::string()
                                           : libgit2_patch(old_data, old_content.size(), new_data,
                                                           new_content.size(), context, path);
  const std::string_view body = body_of(printed);
  const bool binary = !body.empty() && !body.starts_with("@@ ");

  const std::string_view a = added ? new_path : old_path;
  const std::string_view b = deleted ? old_path : new_path;
  std::string out = fmt::format("diff --git {} {}\n", quote_path("a/", a), quote_path("b/", b));
  if (added) out += fmt::format("new file mode {:o}\n", new_mode.value_or(kModeRegular));
  if (deleted) out += fmt::format("deleted file mode {:o}\n", old_mode.value_or(kModeRegular));
  if (mode_changed) {
    if (old_mode) out += fmt::format("old mode {:o}\n", *old_mode);
    out += fmt::format("new mode {:o}\n", *new_mode);
  }
  if (renamed)
    out += fmt::format("rename from {}\nrename to {}\n", quote_path("", old_path),
                       quote_path("", new_path));
  if (!same_content) {
    // git apply wants full ids for a binary patch; git abbreviates them to 7 digits otherwise.
    const std::size_t digits = binary ? 40 : 7;
    const std::string none(digits, '0');
    out += fmt::format("index {}..{}", added ? none : git_blob_id(old_content).substr(0, digits),
                       deleted ? none : git_blob_id(new_content).substr(0, digits));
    if (!added && !deleted && !mode_changed && old_mode) out += fmt::format(" {:o}", *old_mode);
    out += '\n';
  }
  if (!body.empty() && !binary) {
    out += "--- ";
    out += added ? std::string(kDevNull)
                 : quote_path("a/", old_path) + std::string(name_end(old_path));
    out += "\n+++ ";
    out += deleted ? std::string(kDevNull)
                   : quote_path("b/", new_path) + std::string(name_end(new_path));
    out += '\n';
  }
  out += body;
  return out;
}

}  // namespace sm120check
