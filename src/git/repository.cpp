// GitRepository and revision trees through libgit2 (see sm120check/git.hpp). Read-only: no
// checkout, no index or work-tree writes.
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "index_scan.hpp"
#include "libgit2.hpp"
#include "sm120check/error.hpp"
#include "sm120check/git.hpp"

namespace sm120check {
namespace {

const git::Libgit2& lib() { return git::libgit2(); }

/// Owning pointers for libgit2 objects.
struct Free {
  void operator()(git_repository* p) const { lib().git_repository_free(p); }
  void operator()(git_object* p) const { lib().git_object_free(p); }
  void operator()(git_commit* p) const { lib().git_commit_free(p); }
  void operator()(git_tree* p) const { lib().git_tree_free(p); }
  void operator()(git_tree_entry* p) const { lib().git_tree_entry_free(p); }
  void operator()(git_blob* p) const { lib().git_blob_free(p); }
  void operator()(git_reference* p) const { lib().git_reference_free(p); }
  void operator()(git_revwalk* p) const { lib().git_revwalk_free(p); }
  void operator()(git_status_list* p) const { lib().git_status_list_free(p); }
  void operator()(git_index* p) const { lib().git_index_free(p); }
};
template <typename T>
using Owned = std::unique_ptr<T, Free>;

std::string oid_hex(const git_oid* oid) {
  char hex[GIT_OID_HEXSZ + 1];
  lib().git_oid_tostr(hex, sizeof hex, oid);
  return hex;
}

git_oid parse_oid(const std::string& hex) {
  git_oid oid;
  if (lib().git_oid_fromstr(&oid, hex.c_str()) != 0)
    throw Error(fmt::format("not a commit id: '{}'", hex));
  return oid;
}

std::string without_trailing_slash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

/// The repository shared by its trees, with a bounded cache of blob contents by id (libgit2
/// does not cache blobs; `log` reads the same blobs at many commits).
struct Shared {
  Owned<git_repository> repo;
  std::map<std::string, std::shared_ptr<const std::string>> blobs;
  /// Root tree ids of the commits first_parent_commits() walked, by commit id: path_history()
  /// then reads no commit again (commit objects with long messages cost more than trees).
  std::unordered_map<std::string, git_oid> root_trees;
  std::size_t blob_bytes = 0;
  static constexpr std::size_t kMaxBlobBytes = std::size_t{256} << 20;

  std::shared_ptr<const std::string> blob(const git_oid* id, const std::string& path,
                                          std::uint64_t max_size) {
    std::string key = oid_hex(id);
    auto it = blobs.find(key);
    if (it != blobs.end()) return it->second;
    git_blob* raw = nullptr;
    if (lib().git_blob_lookup(&raw, repo.get(), id) != 0)
      throw Error(
          path, 0,
          fmt::format("cannot read blob {}: {}", key, git::last_error_message("libgit2 error")));
    Owned<git_blob> b(raw);
    auto size = static_cast<std::uint64_t>(lib().git_blob_rawsize(b.get()));
    if (size > max_size)
      throw Error(path, 0, fmt::format("file is larger than {} bytes; refused", max_size));
    auto content = std::make_shared<const std::string>(
        static_cast<const char*>(lib().git_blob_rawcontent(b.get())), size);
    if (blob_bytes + size > kMaxBlobBytes) {
      blobs.clear();
      blob_bytes = 0;
    }
    blob_bytes += size;
    blobs.emplace(key, content);
    return content;
  }
};

/// A commit's tree (under a prefix) as a Tree.
/// The Entry type of a tree entry's mode: blobs and gitlinks (read as text) are files.
Entry::Type type_of(git_filemode_t mode) {
  switch (mode) {
    case GIT_FILEMODE_BLOB:
    case GIT_FILEMODE_BLOB_EXECUTABLE:
    case GIT_FILEMODE_COMMIT:
      return Entry::Type::kFile;
    case GIT_FILEMODE_LINK:
      return Entry::Type::kSymlink;
    case GIT_FILEMODE_TREE:
      return Entry::Type::kDirectory;
    default:
      return Entry::Type::kOther;
  }
}

class GitTree final : public Tree {
 public:
  GitTree(std::shared_ptr<Shared> shared, Owned<git_tree> root, std::string prefix,
          std::string name)
      : shared_(std::move(shared)),
        root_(std::move(root)),
        prefix_(std::move(prefix)),
        name_(std::move(name)) {}

  std::string name() const override { return name_; }
  bool gitlinks_as_files() const override { return true; }

  Entry stat(const std::string& path) const override {
    Entry e;
    if (prefix_.empty() && path.empty()) {
      e.type = Entry::Type::kDirectory;
      return e;
    }
    Owned<git_tree_entry> te = lookup(path);
    if (!te) return e;
    const git_filemode_t mode = lib().git_tree_entry_filemode(te.get());
    e.type = type_of(mode);
    e.executable = mode == GIT_FILEMODE_BLOB_EXECUTABLE;
    if (mode == GIT_FILEMODE_COMMIT)  // gitlink: read as the text git diffs show for it
      e.size = gitlink_text(te.get()).size();
    else if (e.type == Entry::Type::kFile)
      e.size = shared_->blob(lib().git_tree_entry_id(te.get()), path, max_file_size())->size();
    return e;
  }

  std::string read(const std::string& path) const override { return *content(path, false); }

  std::string read_link(const std::string& path) const override { return *content(path, true); }

  std::vector<DirEntry> list(const std::string& path) const override {
    // The root of a revision (under the prefix, for a TARGET inside the repository) or a
    // subtree; entries come sorted by name as git stores them (byte order).
    Owned<git_tree> owned;
    const git_tree* dir = root_.get();
    if (!(prefix_.empty() && path.empty())) {
      Owned<git_tree_entry> te = lookup(path);
      if (!te || lib().git_tree_entry_filemode(te.get()) != GIT_FILEMODE_TREE)
        throw Error(path, 0, fmt::format("not a directory in {}", name_));
      git_tree* raw = nullptr;
      if (lib().git_tree_lookup(&raw, shared_->repo.get(), lib().git_tree_entry_id(te.get())) != 0)
        throw Error(
            path, 0,
            fmt::format("cannot read {}: {}", name_, git::last_error_message("libgit2 error")));
      owned.reset(raw);
      dir = raw;
    }
    std::vector<DirEntry> out;
    const std::size_t n = lib().git_tree_entrycount(dir);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const git_tree_entry* e = lib().git_tree_entry_byindex(dir, i);
      out.push_back(DirEntry{lib().git_tree_entry_name(e),
                             type_of(lib().git_tree_entry_filemode(e))});
    }
    // git orders a tree's entries as if directory names ended in "/"; list() promises plain
    // byte order.
    std::sort(out.begin(), out.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return out;
  }

 private:
  /// The entry at prefix + path, or null when absent (also when a parent is not a tree).
  Owned<git_tree_entry> lookup(const std::string& path) const {
    std::string full = without_trailing_slash(prefix_ + path);
    git_tree_entry* raw = nullptr;
    int rc = lib().git_tree_entry_bypath(&raw, root_.get(), full.c_str());
    if (rc == GIT_ENOTFOUND) return nullptr;
    if (rc != 0)
      throw Error(
          path, 0,
          fmt::format("cannot look up in {}: {}", name_, git::last_error_message("libgit2 error")));
    return Owned<git_tree_entry>(raw);
  }

  /// A submodule entry as `git diff` shows it: "Subproject commit <id>\n".
  static std::string gitlink_text(const git_tree_entry* te) {
    return "Subproject commit " + oid_hex(lib().git_tree_entry_id(te)) + "\n";
  }

  std::shared_ptr<const std::string> content(const std::string& path, bool link) const {
    Owned<git_tree_entry> te = lookup(path);
    if (!te) throw Error(path, 0, fmt::format("no such file in {}", name_));
    git_filemode_t mode = lib().git_tree_entry_filemode(te.get());
    if (mode == GIT_FILEMODE_COMMIT && !link)
      return std::make_shared<const std::string>(gitlink_text(te.get()));
    bool is_link = mode == GIT_FILEMODE_LINK;
    bool is_file = mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
    if (link ? !is_link : !is_file)
      throw Error(path, 0, link ? "not a symlink" : "not a regular file");
    return shared_->blob(lib().git_tree_entry_id(te.get()), path, max_file_size());
  }

  std::shared_ptr<Shared> shared_;
  Owned<git_tree> root_;
  std::string prefix_;
  std::string name_;
};

class Repository final : public GitRepository {
 public:
  explicit Repository(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

  git_repository* repo() const { return shared_->repo.get(); }

  std::string root() const override {
    const char* workdir = lib().git_repository_workdir(repo());
    return without_trailing_slash(workdir != nullptr ? workdir : lib().git_repository_path(repo()));
  }

  std::string prefix_of(const std::string& path) const override {
    if (lib().git_repository_workdir(repo()) == nullptr) return {};
    char real[PATH_MAX];
    if (::realpath(path.c_str(), real) == nullptr) return {};
    std::string r = root(), p = real;
    char real_root[PATH_MAX];
    if (::realpath(r.c_str(), real_root) != nullptr) r = real_root;
    if (p == r || p.size() <= r.size() || p.compare(0, r.size(), r) != 0 || p[r.size()] != '/')
      return {};
    return p.substr(r.size() + 1) + "/";
  }

  std::string resolve_commit(const std::string& rev) const override {
    git_object* raw = nullptr;
    if (rev.empty() || lib().git_revparse_single(&raw, repo(), rev.c_str()) != 0)
      throw Error(fmt::format("unknown revision '{}' in {}: {}", rev, root(),
                              git::last_error_message("not found")));
    Owned<git_object> obj(raw);
    git_object* peeled = nullptr;
    if (lib().git_object_peel(&peeled, obj.get(), GIT_OBJECT_COMMIT) != 0)
      throw Error(fmt::format("revision '{}' in {} does not name a commit: {}", rev, root(),
                              git::last_error_message("cannot peel")));
    Owned<git_object> commit(peeled);
    return oid_hex(lib().git_object_id(commit.get()));
  }

  Owned<git_commit> commit(const std::string& id) const {
    git_oid oid = parse_oid(id);
    git_commit* raw = nullptr;
    if (lib().git_commit_lookup(&raw, repo(), &oid) != 0)
      throw Error(
          fmt::format("cannot read commit {}: {}", id, git::last_error_message("libgit2 error")));
    return Owned<git_commit>(raw);
  }

  Owned<git_tree> commit_tree(const std::string& id) const {
    Owned<git_commit> c = commit(id);
    git_tree* raw = nullptr;
    if (lib().git_commit_tree(&raw, c.get()) != 0)
      throw Error(fmt::format("cannot read the tree of commit {}: {}", id,
                              git::last_error_message("libgit2 error")));
    return Owned<git_tree>(raw);
  }

  std::unique_ptr<Tree> tree(const std::string& commit_id, const std::string& prefix,
                             const std::string& name) const override {
    return std::make_unique<GitTree>(shared_, commit_tree(commit_id), prefix, name);
  }

  RepositoryFacts facts(const std::vector<std::string>& paths) const override {
    RepositoryFacts f;
    f.root = root();
    git_reference* raw = nullptr;
    if (lib().git_repository_head(&raw, repo()) == 0) {
      Owned<git_reference> head(raw);
      if (const git_oid* id = lib().git_reference_target(head.get())) f.head = oid_hex(id);
      if (lib().git_repository_head_detached(repo()) != 1)
        f.branch = lib().git_reference_shorthand(head.get());
    } else if (lib().git_repository_head_unborn(repo()) == 1 &&
               lib().git_reference_lookup(&raw, repo(), "HEAD") == 0) {
      Owned<git_reference> head(raw);
      const char* target = lib().git_reference_symbolic_target(head.get());
      std::string t = target != nullptr ? target : "";
      if (t.rfind("refs/heads/", 0) == 0) f.branch = t.substr(11);
    }
    if (lib().git_repository_workdir(repo()) == nullptr) return f;
    if (paths.empty()) return f;
    // What git makes of the index comes first: libgit2 1.5 reads a split index's own part
    // only (and calls a modified file clean), and takes what git refuses for an empty index.
    const std::string index_path = std::string(lib().git_repository_path(repo())) + "index";
    const git::IndexFileCheck index = git::check_index_file(index_path, false);
    if (index.state == git::IndexFileCheck::State::refused) {
      f.dirty_unknown = fmt::format("the index ({}) cannot be read: {}; see git status", index_path,
                                    index.reason);
      return f;
    }
    if (index.split) {
      f.dirty_unknown =
          "the index is split (git update-index --split-index), which libgit2 1.5 does not "
          "read: see git status";
      return f;
    }
    // One status pass over exactly these paths (git_status_file per path re-examines the index
    // each time: about 0.5 ms a file, which a series of hundreds of files notices).
    std::vector<char*> specs;
    specs.reserve(paths.size());
    for (const std::string& path : paths) specs.push_back(const_cast<char*>(path.c_str()));
    git_status_options opts = GIT_STATUS_OPTIONS_INIT;
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH | GIT_STATUS_OPT_INCLUDE_UNTRACKED;
    opts.pathspec = {specs.data(), specs.size()};
    git_status_list* raw_list = nullptr;
    std::string error = "the trailer is all zeros (index.skipHash)";
    // libgit2 1.5 refuses an index whose trailer is not the SHA-1 of its bytes (git >= 2.40
    // writes zeros there with index.skipHash; git itself never checks it outside fsck): such
    // an index is read through a copy with the checksum, at once when the trailer is zeros.
    if (index.trailer == git::IndexFileCheck::Trailer::zero ||
        lib().git_status_list_new(&raw_list, repo(), &opts) != 0) {
      if (index.trailer != git::IndexFileCheck::Trailer::zero)
        error = git::last_error_message("libgit2 error");
      if (index.state == git::IndexFileCheck::State::readable)
        raw_list = status_through_checksummed_copy(index_path, opts);
      if (raw_list == nullptr) {
        f.dirty_unknown = fmt::format("libgit2 cannot read the index ({}): {}; see git status",
                                      index_path, error);
        return f;
      }
    }
    Owned<git_status_list> list(raw_list);
    const std::size_t n = lib().git_status_list_entrycount(list.get());
    std::vector<std::string> only_deleted;  // deleted in the work tree, nothing staged
    for (std::size_t i = 0; i < n; ++i) {
      const git_status_entry* e = lib().git_status_byindex(list.get(), i);
      if (e == nullptr || e->status == GIT_STATUS_CURRENT || e->status == GIT_STATUS_IGNORED)
        continue;
      const git_diff_delta* d =
          e->index_to_workdir != nullptr ? e->index_to_workdir : e->head_to_index;
      if (d == nullptr) continue;
      const char* path = d->new_file.path != nullptr ? d->new_file.path : d->old_file.path;
      if (path == nullptr) continue;
      f.dirty.emplace_back(path);
      if (e->status == GIT_STATUS_WT_DELETED) only_deleted.emplace_back(path);
    }
    // git's status does not look at files flagged assume-unchanged or skip-worktree (libgit2
    // 1.5's at those flagged assume-unchanged, and it calls a skip-worktree file a sparse
    // checkout left out deleted); the verdict reads them from disk.
    git::FlaggedEntries flagged = git::check_flagged_entries(f.root, index_path, paths);
    if (!flagged.unknown.empty()) {
      f.dirty.clear();
      f.dirty_unknown = std::move(flagged.unknown);
      return f;
    }
    f.dirty.insert(f.dirty.end(), flagged.dirty.begin(), flagged.dirty.end());
    f.not_checked_out = std::move(flagged.not_checked_out);
    // Not checked out is not deleted, unless a change is staged too.
    f.dirty.erase(std::remove_if(f.dirty.begin(), f.dirty.end(),
                                 [&](const std::string& p) {
                                   return std::binary_search(f.not_checked_out.begin(),
                                                             f.not_checked_out.end(), p) &&
                                          std::find(only_deleted.begin(), only_deleted.end(),
                                                    p) != only_deleted.end();
                                 }),
                  f.dirty.end());
    std::sort(f.dirty.begin(), f.dirty.end());
    f.dirty.erase(std::unique(f.dirty.begin(), f.dirty.end()), f.dirty.end());
    return f;
  }

  /// git_status_list_new() with the index read from a copy of `index_path` (an index git reads,
  /// IndexFileCheck::State::readable) whose trailer is the checksum libgit2 insists on, in an
  /// anonymous memory file (memfd_create(2)) with the original's times, so that libgit2 tells
  /// racily clean entries as it would from the original. nullptr when it cannot be done.
  git_status_list* status_through_checksummed_copy(const std::string& index_path,
                                                   const git_status_options& opts) const {
    const int in = ::open(index_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return nullptr;
    struct stat st;
    std::string bytes;
    if (::fstat(in, &st) == 0 && S_ISREG(st.st_mode)) {
      bytes.resize(static_cast<std::size_t>(st.st_size));
      std::size_t got = 0;
      while (got < bytes.size()) {
        const ssize_t n = ::read(in, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      bytes.resize(got);
    }
    ::close(in);
    const std::string fixed = git::with_index_checksum(bytes);
    if (fixed.empty() || bytes.size() != static_cast<std::size_t>(st.st_size)) return nullptr;
    const int fd = ::memfd_create("sm120check-index", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    std::size_t put = 0;
    while (put < fixed.size()) {
      const ssize_t n = ::write(fd, fixed.data() + put, fixed.size() - put);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      put += static_cast<std::size_t>(n);
    }
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    git_status_list* list = nullptr;
    git_index* raw = nullptr;
    const std::string copy = "/proc/self/fd/" + std::to_string(fd);
    if (put == fixed.size() && ::futimens(fd, times) == 0 &&
        lib().git_index_open(&raw, copy.c_str()) == 0) {
      Owned<git_index> index(raw);
      lib().git_repository_set_index(repo(), index.get());
      if (lib().git_status_list_new(&list, repo(), &opts) != 0) list = nullptr;
      lib().git_repository_set_index(repo(), nullptr);  // the next reader loads the file again
    }
    ::close(fd);
    return list;
  }

  std::vector<std::string> first_parent_commits(const std::string& range) const override {
    std::size_t dots = range.find("..");
    if (range.find("...") != std::string::npos)
      throw Error(fmt::format("range '{}': use A..B (A...B is not supported)", range));
    std::string tip = dots == std::string::npos ? range : range.substr(dots + 2);
    if (tip.empty()) tip = "HEAD";
    git_oid tip_oid = parse_oid(resolve_commit(tip));
    std::vector<std::string> newest_first;
    if (dots == std::string::npos) {
      // The first-parent chain, read commit by commit (one read each, root trees kept). It
      // ends at a root commit, or at a parent missing from the object database (the boundary
      // of a shallow clone), as the revision walk below does.
      git_oid oid = tip_oid;
      while (true) {
        git_commit* raw = nullptr;
        if (lib().git_commit_lookup(&raw, repo(), &oid) != 0) {
          if (newest_first.empty())
            throw Error(fmt::format("cannot read commit {}: {}", oid_hex(&oid),
                                    git::last_error_message("libgit2 error")));
          break;
        }
        Owned<git_commit> c(raw);
        newest_first.push_back(oid_hex(&oid));
        shared_->root_trees[newest_first.back()] = *lib().git_commit_tree_id(c.get());
        if (lib().git_commit_parentcount(c.get()) == 0) break;
        oid = *lib().git_commit_parent_id(c.get(), 0);
      }
      return {newest_first.rbegin(), newest_first.rend()};
    }
    git_revwalk* raw = nullptr;
    if (lib().git_revwalk_new(&raw, repo()) != 0)
      throw Error(std::string("cannot walk history: ") + git::last_error_message("libgit2"));
    Owned<git_revwalk> walk(raw);
    lib().git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL);
    lib().git_revwalk_simplify_first_parent(walk.get());
    lib().git_revwalk_push(walk.get(), &tip_oid);
    std::string base = range.substr(0, dots);
    git_oid base_oid = parse_oid(resolve_commit(base.empty() ? "HEAD" : base));
    lib().git_revwalk_hide(walk.get(), &base_oid);
    git_oid oid;
    while (lib().git_revwalk_next(&oid, walk.get()) == 0) newest_first.push_back(oid_hex(&oid));
    return {newest_first.rbegin(), newest_first.rend()};
  }

  bool contains(const std::string& of, const std::string& commit_id) const override {
    if (of == commit_id) return true;
    git_oid a = parse_oid(of), b = parse_oid(commit_id);
    return lib().git_graph_descendant_of(repo(), &a, &b) == 1;
  }

  CommitInfo commit_info(const std::string& id) const override {
    Owned<git_commit> c = commit(id);
    CommitInfo info;
    info.id = id;
    const char* summary = lib().git_commit_summary(c.get());
    info.subject = summary != nullptr ? summary : "";
    info.time = lib().git_commit_time(c.get());
    info.offset_minutes = lib().git_commit_time_offset(c.get());
    if (lib().git_commit_parentcount(c.get()) > 0) {
      git_commit* parent = nullptr;
      if (lib().git_commit_lookup(&parent, repo(), lib().git_commit_parent_id(c.get(), 0)) == 0)
        lib().git_commit_free(parent);
      else
        info.parent_missing = true;
    }
    return info;
  }

  std::string state_key(const std::string& commit_id,
                        const std::vector<std::string>& paths) const override {
    std::string key;
    for (const std::vector<PathChange>& changes : path_history({commit_id}, paths))
      key += changes.front().entry + ";";
    return key;
  }

  std::vector<std::vector<PathChange>> path_history(
      const std::vector<std::string>& commits,
      const std::vector<std::string>& paths) const override {
    /// One path's descent in the previous commit: the tree ids it went through, top first
    /// (the last one is where its entry was looked up, or found missing), and the entry.
    struct Descent {
      std::vector<std::string> parts;
      std::vector<git_oid> trees;
      std::string entry;
    };
    std::vector<Descent> descents(paths.size());
    for (std::size_t k = 0; k < paths.size(); ++k) {
      const std::string path = without_trailing_slash(paths[k]);
      for (std::size_t from = 0; from <= path.size();) {
        std::size_t slash = std::min(path.find('/', from), path.size());
        if (slash > from) descents[k].parts.push_back(path.substr(from, slash - from));
        from = slash + 1;
      }
    }
    auto same = [](const git_oid& a, const git_oid& b) {
      return std::memcmp(a.id, b.id, GIT_OID_RAWSZ) == 0;
    };
    std::vector<std::vector<PathChange>> out(paths.size());
    std::vector<std::pair<git_oid, Owned<git_tree>>> loaded;  // this commit's trees
    for (std::size_t i = 0; i < commits.size(); ++i) {
      git_oid root;
      auto known = shared_->root_trees.find(commits[i]);
      if (known != shared_->root_trees.end())
        root = known->second;
      else
        root = *lib().git_commit_tree_id(commit(commits[i]).get());
      loaded.clear();
      auto tree = [&](const git_oid& id) -> const git_tree* {
        for (const auto& [oid, t] : loaded)
          if (same(oid, id)) return t.get();
        git_tree* raw = nullptr;
        if (lib().git_tree_lookup(&raw, repo(), &id) != 0)
          throw Error(fmt::format("cannot read a tree of commit {}: {}", commits[i],
                                  git::last_error_message("libgit2 error")));
        loaded.emplace_back(id, Owned<git_tree>(raw));
        return raw;
      };
      for (std::size_t k = 0; k < paths.size(); ++k) {
        Descent& d = descents[k];
        std::vector<git_oid> trees;
        std::string entry = "-";
        git_oid at = root;
        bool unchanged = false;
        for (std::size_t level = 0; level < d.parts.size(); ++level) {
          if (i > 0 && level < d.trees.size() && same(d.trees[level], at)) {
            // The same subtree as in the previous commit: the rest of the descent is too.
            trees.insert(trees.end(), d.trees.begin() + static_cast<std::ptrdiff_t>(level),
                         d.trees.end());
            unchanged = true;
            break;
          }
          trees.push_back(at);
          const git_tree_entry* e = lib().git_tree_entry_byname(tree(at), d.parts[level].c_str());
          if (e == nullptr) break;
          git_filemode_t mode = lib().git_tree_entry_filemode(e);
          if (level + 1 == d.parts.size()) {
            entry = fmt::format("{}:{:o}", oid_hex(lib().git_tree_entry_id(e)),
                                static_cast<unsigned>(mode));
          } else if (mode == GIT_FILEMODE_TREE) {
            at = *lib().git_tree_entry_id(e);
            continue;
          }
          break;
        }
        d.trees = std::move(trees);
        if (unchanged || (i > 0 && entry == d.entry)) continue;
        d.entry = entry;
        out[k].push_back({i, std::move(entry)});
      }
    }
    return out;
  }

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace

std::optional<std::string> find_git_work_tree(const std::string& path) {
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) == nullptr) return std::nullopt;
  std::string dir = real;
  struct stat st;
  while (true) {
    if (::lstat((dir == "/" ? std::string("/.git") : dir + "/.git").c_str(), &st) == 0) return dir;
    if (dir == "/") return std::nullopt;
    std::size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
}

namespace {

/// True when `path` is itself a git directory (as git's is_git_directory(): a HEAD file and
/// objects/ and refs/ folders), e.g. a bare mirror without a `config` file, which libgit2 would
/// otherwise take for a folder inside the work tree of the repository above it.
bool is_git_directory(const std::string& path) {
  struct stat st;
  auto is = [&](const char* name, bool dir) {
    return ::stat((path + "/" + name).c_str(), &st) == 0 &&
           (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
  };
  return is("HEAD", false) && is("objects", true) && is("refs", true);
}

}  // namespace

std::unique_ptr<GitRepository> GitRepository::open(const std::string& path) {
  const git::Libgit2& l = lib();
  git_repository* raw = nullptr;
  const unsigned flags =
      is_git_directory(path) ? GIT_REPOSITORY_OPEN_BARE | GIT_REPOSITORY_OPEN_NO_SEARCH : 0u;
  if (l.git_repository_open_ext(&raw, path.c_str(), flags, nullptr) != 0)
    throw Error(path, 0,
                fmt::format("not in a git repository ({})", git::last_error_message("not found")));
  auto shared = std::make_shared<Shared>();
  shared->repo.reset(raw);
  return std::make_unique<Repository>(std::move(shared));
}

bool git_supports_threads() { return (lib().git_libgit2_features() & GIT_FEATURE_THREADS) != 0; }

std::vector<std::string> touched_paths(const std::vector<Patch>& patches,
                                       const std::vector<unsigned>& strips,
                                       const std::string& prefix) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;  // linear in the paths, whatever their number
  for (std::size_t i = 0; i < patches.size(); ++i) {
    unsigned strip = i < strips.size() ? strips[i] : 1;
    for (const FilePatch& fp : patches[i].files) {
      for (const std::string* side : {&fp.old_path, &fp.new_path}) {
        if (*side == "/dev/null") continue;
        std::optional<std::string> s = strip_path(*side, strip);
        if (!s || s->empty() || s->front() == '/') continue;
        std::optional<std::string> norm = normalize_relative_path(*s);
        if (!norm) continue;
        std::string full = prefix + *norm;
        if (seen.insert(full).second) out.push_back(std::move(full));
      }
    }
  }
  return out;
}

}  // namespace sm120check
