// git_read_filter(): git's end-of-line conversion of work tree files, through libgit2; and
// its way back for `apply` (restore_work_tree_form()).
#include "read_filter.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "libgit2.hpp"
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

std::optional<std::string> real_path(const char* path) {
  char* r = ::realpath(path, nullptr);
  if (r == nullptr) return std::nullopt;
  std::string out(r);
  std::free(r);
  return out;
}

class GitReadFilter final : public ReadFilter {
 public:
  GitReadFilter(std::string target, std::set<std::string> keep_crlf)
      : target_(std::move(target)), keep_crlf_(std::move(keep_crlf)) {}
  ~GitReadFilter() override {
    if (repo_ != nullptr) git::libgit2().git_repository_free(repo_);
  }
  GitReadFilter(const GitReadFilter&) = delete;
  GitReadFilter& operator=(const GitReadFilter&) = delete;

  bool convert(const std::string& path, std::string& content) const override {
    if (std::memchr(content.data(), '\r', content.size()) == nullptr) return false;
    if (keep_crlf_.count(path) != 0) return false;
    const std::lock_guard<std::mutex> lock(mutex_);  // one repository object for every thread
    if (!run_filters(path, GIT_FILTER_TO_ODB, content)) return false;
    converted_.insert(path);
    return true;
  }

  /// Whether convert() changed `path` when it was read.
  bool was_converted(const std::string& path) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return converted_.count(path) != 0;
  }

  /// `content` (the repository's form of `path`) put into the work tree's form, as git
  /// checks a file out (GIT_FILTER_TO_WORKTREE); returns whether it changed.
  bool to_work_tree(const std::string& path, std::string& content) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return run_filters(path, GIT_FILTER_TO_WORKTREE, content);
  }

 private:
  /// Runs the filters git would for `path` in `mode` over `content`; false (content as it
  /// was) when none applies, nothing changes, or libgit2 or the repository is missing.
  bool run_filters(const std::string& path, git_filter_mode_t mode, std::string& content) const {
    try {
      if (!opened_) {
        opened_ = true;
        open();
      }
      if (repo_ == nullptr) return false;
      const git::Libgit2& lib = git::libgit2();
      const std::string in_repo = prefix_ + path;
      git_filter_list* filters = nullptr;
      if (lib.git_filter_list_load(&filters, repo_, nullptr, in_repo.c_str(), mode,
                                   GIT_FILTER_ALLOW_UNSAFE) != 0 ||
          filters == nullptr)
        return false;
      git_buf out = GIT_BUF_INIT;
      const int rc =
          lib.git_filter_list_apply_to_buffer(&out, filters, content.data(), content.size());
      lib.git_filter_list_free(filters);
      bool changed = false;
      if (rc == 0 && (out.size != content.size() ||
                      std::memcmp(out.ptr, content.data(), content.size()) != 0)) {
        content.assign(out.ptr, out.size);
        changed = true;
      }
      lib.git_buf_dispose(&out);
      return changed;
    } catch (const std::exception&) {
      return false;  // libgit2 missing: compared as read, as before
    }
  }

  /// Opens the repository at or above target_ and finds prefix_; repo_ stays null when there
  /// is no work tree holding target_.
  void open() const {
    const git::Libgit2& lib = git::libgit2();
    git_repository* repo = nullptr;
    if (lib.git_repository_open_ext(&repo, target_.c_str(), 0, nullptr) != 0) return;
    const char* workdir = lib.git_repository_workdir(repo);
    const std::optional<std::string> root = workdir ? real_path(workdir) : std::nullopt;
    const std::optional<std::string> here = real_path(target_.c_str());
    if (!root || !here || here->compare(0, root->size(), *root) != 0 ||
        (here->size() > root->size() && (*here)[root->size()] != '/' && *root != "/")) {
      lib.git_repository_free(repo);
      return;
    }
    prefix_ = here->substr(root->size());
    while (!prefix_.empty() && prefix_.front() == '/') prefix_.erase(0, 1);
    if (!prefix_.empty()) prefix_ += '/';
    repo_ = repo;
  }

  const std::string target_;
  const std::set<std::string> keep_crlf_;
  mutable std::mutex mutex_;
  mutable bool opened_ = false;
  mutable git_repository* repo_ = nullptr;
  mutable std::string prefix_;  ///< target_ below the work tree's root: "" or "dir/"
  mutable std::set<std::string> converted_;  ///< paths convert() changed
};

}  // namespace

std::shared_ptr<const ReadFilter> git_read_filter(std::string target,
                                                  std::set<std::string> keep_crlf) {
  return std::make_shared<GitReadFilter>(std::move(target), std::move(keep_crlf));
}

void restore_work_tree_form(const ReadFilter& filter, const std::string& target,
                            std::vector<FileChange>& changes) {
  const auto* git = dynamic_cast<const GitReadFilter*>(&filter);
  if (git == nullptr) return;
  std::unique_ptr<Tree> raw;  // TARGET without the filter: the bytes on disk
  for (FileChange& c : changes) {
    if (c.kind == FileChange::Kind::kWrite && c.mode && *c.mode == kModeSymlink) continue;
    const bool converted =
        c.before && c.before->type == FileChange::Before::Type::kFile && git->was_converted(c.path);
    if (converted) {
      // The plan was made from the converted bytes; write_changes() checks the bytes on disk.
      if (!raw) raw = open_disk_tree(target);
      std::string on_disk = raw->read(c.path);
      std::string as_read = on_disk;
      filter.convert(c.path, as_read);
      if (git_blob_id(as_read) != c.before->blob_id)
        throw Error(c.path, 0, "changed while apply ran: its content is not what was read");
      c.before->blob_id = git_blob_id(on_disk);
    }
    // Every file written goes through the work tree's conversion, as git apply writes it
    // (an LF file in a work tree whose form is CRLF comes out CRLF, as with git).
    const bool was_link = c.before && c.before->type == FileChange::Before::Type::kSymlink;
    if (c.kind == FileChange::Kind::kWrite && !was_link) git->to_work_tree(c.path, c.content);
  }
}


std::set<std::string> paths_with_crlf_pre_image(const std::vector<Patch>& patches,
                                                const std::vector<unsigned>& strips) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < patches.size(); ++i) {
    const unsigned strip = i < strips.size() ? strips[i] : 1;
    for (const FilePatch& fp : patches[i].files) {
      bool crlf = false;
      for (const Hunk& h : fp.hunks)
        for (const HunkLine& l : h.lines)
          crlf = crlf || (l.kind != LineKind::kAdded && !l.text.empty() && l.text.back() == '\r');
      if (!crlf) continue;
      for (const std::string* side : {&fp.old_path, &fp.new_path}) {
        if (*side == "/dev/null") continue;
        std::optional<std::string> s = strip_path(*side, strip);
        if (!s || s->empty() || s->front() == '/') continue;
        if (std::optional<std::string> norm = normalize_relative_path(*s)) out.insert(*norm);
      }
    }
  }
  return out;
}

}  // namespace sm120check
