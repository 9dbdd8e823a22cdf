// Internal to src/verify: what its units share. verify.cpp runs the loop over patches and
// files; locate.cpp turns patch paths into tree paths (strip levels, relocation); decide.cpp
// decides one file patch per change kind; series.cpp relates the patches of one run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "sm120check/apply.hpp"
#include "sm120check/verify.hpp"

namespace sm120check::detail {

inline constexpr std::string_view kDevNull = "/dev/null";

inline bool is_dev_null(std::string_view path) { return path == kDevNull; }

/// A patch path after stripping and normalising, or why it cannot be used.
struct Resolved {
  std::optional<std::string> path;  ///< std::nullopt for /dev/null or on error
  std::string error;
};

/// `patch_path` with `strip` leading components removed and normalised; an error for a path
/// too short for the strip level, an absolute path, or one that climbs out of the target.
Resolved resolve(std::string_view patch_path, unsigned strip);

/// Whether `path` is in the tree. Throws Error when it cannot be examined (e.g. it resolves
/// outside the target through a symlink): the file is then reported as `error`.
bool exists(const Tree& tree, const std::string& path);

/// The path file patch `fp` (at `strip`) takes away: a deleted file's, or a renamed one's old
/// path; std::nullopt for the others.
std::optional<std::string> removed_path(const FilePatch& fp, unsigned strip);

/// The path file patch `fp` (at `strip`) brings a file to: an added file's, or a renamed or
/// copied one's new path; std::nullopt for the others.
std::optional<std::string> created_path(const FilePatch& fp, unsigned strip);

/// Where a modification that names two files (a plain diff with a backup on one side,
/// "--- f.orig" / "+++ f": not a rename or copy, the stripped names differ) is made in place:
/// `path`, and, when the run rather than the tree decided it, why (words for a reason).
struct InPlace {
  std::string path;
  std::string why;
};

/// Per file patch of a run (keyed by its address in `patches`).
using InPlaceNames = std::unordered_map<const FilePatch*, InPlace>;

/// For every modification of `patches` (strip levels `strips`, one per patch) that names two
/// files, the name it changes in place: the one that exists at that point of the run, the new
/// one when both do or neither does. A name exists there as the run leaves it: the last
/// earlier file patch that brings a file there (add, rename or copy to it) or takes it away
/// (delete, rename from it) says so; else the first later one says what it finds (a file it
/// brings was not there, one it takes away was); else `tree` (the target, never the passes'
/// overlay). So the choice is the same on the tree before the run and on the tree the run
/// wrote, and the run's own files do not move it. Names that cannot be examined are left out
/// (verify_file() reports them). Empty, and no file examined, when no file patch names two
/// files.
InPlaceNames in_place_names(std::span<const Patch> patches, const std::vector<unsigned>& strips,
                            const Tree& tree);

/// Per stripped path, the run's file patches that modify the file there (a modification whose
/// old and new names are the same), for relocate(): a missing file's hunks are not found in a
/// file that another file patch of the run changes the same way (a change made to copies of a
/// function in two files, one of them since deleted: lmdeploy 0511f95cb6's yi.py read `applied`
/// in llava.py, where the patch's own llava.py hunk stands).
using ModifiedInPlace = std::unordered_map<std::string, std::vector<const FilePatch*>>;

/// modified_in_place() of `patches` at `strips` (one per patch; paths that do not strip are
/// left out), and of the file patches `left_out` holds for each patch (VerifyOptions::left_out),
/// at the same levels.
ModifiedInPlace modified_in_place(std::span<const Patch> patches,
                                  const std::vector<unsigned>& strips,
                                  const std::vector<std::vector<FilePatch>>* left_out = nullptr);

/// The path a modification of `old_path` into `new_path` (stripped, different) is made at:
/// `names`' choice for `fp` when it has one, else the name that exists in `tree` (the new one
/// when both do or neither does). Throws Error as exists() does.
std::string modified_path(const FilePatch& fp, const std::string& old_path,
                          const std::string& new_path, const Tree& tree,
                          const InPlaceNames* names);

inline bool is_symlink_mode(const std::optional<std::uint32_t>& mode) {
  return mode && (*mode & 0170000) == kModeSymlink;
}

/// Whether a patch's file mode is an executable file's: the owner's execute bit, as git reads
/// a mode (canon_mode(): 100755 when it is set, 100644 otherwise; "100643" is not executable)
/// and as Entry::executable is read from the tree.
inline bool is_executable_mode(const std::optional<std::uint32_t>& mode) {
  return mode && (*mode & 0100) != 0;
}

/// Appends `text` to the file's reason ("; " between parts); nothing for "".
void append_reason(FileReport& fr, std::string_view text);

/// Hunk reports for hunks that are decided as a whole with the file (added/deleted files). The
/// line is 1 when the decision is about a file that is there, none when the file is absent.
void whole_file_hunks(const FilePatch& fp, FileReport& fr, HunkStatus status, bool file_present);

/// Files already read in this run, kept for later file patches and patches that touch them
/// again (a series, or several sections for one file): each is read and split once. Bounded:
/// when more than kMaxBytes are held, everything is dropped.
///
/// A cache made over a `base` cache (the series passes over the verdicts' cache) serves the
/// paths it has not erase()d from `base`, so that a file the passes have not changed keeps its
/// text, line indexes and blob id from the first reading; its loader must then read what
/// `base`'s did at those paths.
class FileCache {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;

  FileCache() = default;
  explicit FileCache(FileCache* base) : base_(base) {}
  FileCache(const FileCache&) = delete;
  FileCache& operator=(const FileCache&) = delete;

  /// The content at `key` ("path" or "path -> link"), produced by `load` when not cached.
  template <typename Load>
  const FileText& get(const std::string& key, Load&& load) {
    if (base_ != nullptr && changed_.count(key) == 0) return base_->get(key, load);
    auto it = files_.find(key);
    if (it != files_.end()) return *it->second;
    std::string content = load();
    if (bytes_ + content.size() > kMaxBytes) {
      files_.clear();
      own_.clear();
      blob_ids_.clear();
      vouched_.clear();
      bytes_ = 0;
    }
    bytes_ += content.size();
    auto text = std::make_shared<FileText>(std::move(content));
    own_.insert(text.get());
    return *files_.emplace(key, std::move(text)).first->second;
  }

  /// Forgets what was read at `path` (its content and, for a symlink, its target): the tree
  /// changed there (over a base cache: from now on it is read anew, here).
  void erase(const std::string& path) {
    for (const std::string& key : {path, path + " -> link"}) {
      if (base_ != nullptr) changed_.insert(key);
      auto it = files_.find(key);
      if (it == files_.end()) continue;
      bytes_ -= it->second->content().size();
      blob_ids_.erase(it->second.get());
      vouched_.erase(it->second.get());
      own_.erase(it->second.get());
      files_.erase(it);
    }
  }

  /// Takes the files `other` read and this cache has not (the same tree read by another
  /// thread), with their blob ids, as far as kMaxBytes allows; `other` is left empty. Neither
  /// may be a cache over a base.
  void absorb(FileCache& other) {
    for (auto& [key, text] : other.files_) {
      const std::size_t size = text->content().size();
      if (files_.count(key) != 0 || bytes_ + size > kMaxBytes) continue;
      if (auto id = other.blob_ids_.find(text.get()); id != other.blob_ids_.end())
        blob_ids_.emplace(text.get(), std::move(id->second));
      if (other.vouched_.count(text.get()) != 0) vouched_.insert(text.get());
      bytes_ += size;
      own_.insert(text.get());
      files_.emplace(key, std::move(text));
    }
    other.files_.clear();
    other.own_.clear();
    other.blob_ids_.clear();
    other.vouched_.clear();
    other.bytes_ = 0;
  }

  /// get() of `path` as `tree` reads it, keeping the blob id the tree knows without hashing
  /// (Tree::read_with_blob_id(): a git index's, for a file unchanged since it was hashed) for
  /// blob_id().
  const FileText& read(const Tree& tree, const std::string& path) {
    std::string id;
    const FileText& text = get(path, [&] { return tree.read_with_blob_id(path, id); });
    if (!id.empty() && blob_ids_.emplace(&text, std::move(id)).second)  // read just now
      vouched_.insert(&text);
    return text;
  }

  /// The text get() or read() gave for `key` (or a base cache's), owned jointly: it stays
  /// valid for another thread however this cache drops it. Null when none is cached.
  std::shared_ptr<const FileText> shared(const std::string& key) const {
    if (base_ != nullptr && changed_.count(key) == 0) return base_->shared(key);
    auto it = files_.find(key);
    return it != files_.end() ? it->second : nullptr;
  }

  /// True when blob_id(`text`) is the id the tree vouched for (a git index's, for a file whose
  /// stat data it records), not one hashed from the content: a crafted or stale index can
  /// make it wrong, so a verdict it could have turned is checked (recompute_blob_id()).
  bool blob_id_vouched(const FileText& text) const {
    if (base_ != nullptr && own_.count(&text) == 0) return base_->blob_id_vouched(text);
    return vouched_.count(&text) != 0;
  }

  /// Replaces a vouched id of `text` by git_blob_id() of its content; true when they differ.
  bool recompute_blob_id(const FileText& text) {
    if (base_ != nullptr && own_.count(&text) == 0) return base_->recompute_blob_id(text);
    if (vouched_.erase(&text) == 0) return false;
    std::string& id = blob_ids_[&text];
    std::string hashed = git_blob_id(text.content());
    if (hashed == id) return false;
    id = std::move(hashed);
    return true;
  }

  /// git_blob_id() of `text`'s content, computed once: `text` must be one get() returned.
  const std::string& blob_id(const FileText& text) {
    auto it = blob_ids_.find(&text);
    if (it != blob_ids_.end()) return it->second;
    if (base_ != nullptr && own_.count(&text) == 0) return base_->blob_id(text);
    return blob_ids_.emplace(&text, git_blob_id(text.content())).first->second;
  }

 private:
  FileCache* base_ = nullptr;
  std::set<std::string> changed_;  ///< keys erased over the base cache
  /// Shared, so that a text can outlive its entry (shared()).
  std::map<std::string, std::shared_ptr<FileText>> files_;
  std::unordered_set<const FileText*> own_;  ///< the texts in files_
  std::map<const FileText*, std::string> blob_ids_;
  std::unordered_set<const FileText*> vouched_;  ///< blob_ids_ the tree gave, not hashed
  std::size_t bytes_ = 0;
};

/// The run's tree with the answers of stat() kept (errors included): a run asks about the
/// same paths many times (strip detection at five levels, relocation, the verdicts, the
/// series, the evidence), and the tree is never written while it runs. Not thread-safe.
class StatCache final : public Tree {
 public:
  explicit StatCache(const Tree& base) : base_(base) {}
  std::string name() const override { return base_.name(); }
  Entry stat(const std::string& path) const override;
  std::string read(const std::string& path) const override { return base_.read(path); }
  std::string read_with_blob_id(const std::string& path, std::string& blob_id) const override {
    return base_.read_with_blob_id(path, blob_id);
  }
  std::string read_link(const std::string& path) const override { return base_.read_link(path); }
  std::uint64_t max_file_size() const override { return base_.max_file_size(); }
  bool gitlinks_as_files() const override { return base_.gitlinks_as_files(); }
  std::vector<DirEntry> list(const std::string& path) const override { return base_.list(path); }

 private:
  const Tree& base_;
  mutable std::unordered_map<std::string, std::variant<Entry, std::exception_ptr>> known_;
};

/// One search of the tree for the markers of every file patch to relocate in a run (and the
/// run's marker search): the walk is the cost, so it is made once (see verify()).
struct RelocationSearch {
  SearchResult result;  ///< with collect_files, every hit kept
  /// Each file patch's markers: [first, second) in result.markers (empty for one whose
  /// candidates by name decide, see decided_by_name()).
  std::map<const FilePatch*, std::pair<std::size_t, std::size_t>> ranges;
  /// Indices into result.files by file name (last path component), in increasing order.
  std::unordered_map<std::string, std::vector<std::size_t>> by_name;
  /// True when result.files comes from walk_file_names() (no content searched): a file is
  /// then a candidate only if search_tree() would have listed it (check_listable()).
  bool names_only = false;
  std::string root;
  std::uint64_t max_file_size = 0;
  /// Fills by_name from result.files.
  void index_names();
  /// The indices in result.files of the files named as `path`'s last component, as
  /// search_tree()'s list would hold them.
  std::vector<std::size_t> named(const std::string& path) const;
};

/// True when the run searches the target (relocation, markers): a directory on disk
/// (VerifyOptions::search_root) or the tree itself (VerifyOptions::search_in_tree).
inline bool can_search(const VerifyOptions& options) {
  return !options.search_root.empty() || options.search_in_tree;
}

/// search_tree() of the run's target: the directory on disk when there is one, else `tree`.
SearchResult search_target(const Tree& tree, const VerifyOptions& options,
                           const std::vector<Marker>& markers, const SearchOptions& so);

/// What every check of one run shares.
struct Context {
  const Tree& tree;
  const VerifyOptions& options;
  FileCache& cache;
  /// The shared relocation search, or null: relocate() then searches for itself.
  const RelocationSearch* relocation_search = nullptr;
  /// The run's choices of name for modifications that name two files (in_place_names()), or
  /// null: the name that exists in `tree` then.
  const InPlaceNames* in_place = nullptr;
  /// The run's in-place modifications by path (modified_in_place()), or null: relocate() then
  /// takes any candidate.
  const ModifiedInPlace* modified = nullptr;
};

// verify.cpp: one file patch, start to end.

/// verify() with the cache of files read given: it holds them afterwards (plan_apply() hands it
/// to run_series()).
VerifyReport verify_with(const std::vector<Patch>& patches, const Tree& tree,
                         const VerifyOptions& options, FileCache& cache);

/// Resolves the file patch's paths at `strip` and decides it against ctx.tree (relocating a
/// missing file when ctx.options.relocate); never throws for problems of the file.
FileReport verify_file(const FilePatch& fp, Context& ctx, unsigned strip);

// decide.cpp: one file patch against what the tree holds.

/// Content and mode of an existing file against the patch's changes (modify, mode, binary,
/// and the content part of renames and copies).
Status verify_existing(Context& ctx, const std::string& path, const FilePatch& fp, FileReport& fr);
/// An added file: applicable when `path` is missing, applied when it holds the post-image.
Status verify_add(const Tree& tree, const std::string& path, const FilePatch& fp, FileReport& fr);
/// A deleted file: applied when `path` is missing, applicable when it holds the pre-image.
Status verify_delete(const Tree& tree, const std::string& path, const FilePatch& fp,
                     FileReport& fr);
/// A change of a gitlink (a submodule, mode 160000 on either side) in a tree that does not read
/// gitlinks as files (Tree::gitlinks_as_files() false: a directory on disk): the commit a
/// submodule records is in no file there, so the change is never applied or applicable as file
/// content (and `apply` never writes it). kUnknown where `path` is a folder (a checked-out
/// submodule) or missing, kConflict where it is another kind of file; the reason says so and
/// how to update the submodule instead.
Status verify_gitlink(const Tree& tree, const std::string& path, const FilePatch& fp,
                      FileReport& fr);
/// Whether a rename in `direction` was made but its source left behind: `from` (the old path
/// forward, the new path reverse) still holds exactly what moving it gives at `to`, the same
/// kind of entry (regular file or symlink), and moving it again would give `to`'s bytes: for a
/// pure rename the same bytes (a symlink: the same target), for a binary one the index line's
/// two blob ids, else `fp`'s hunks written into `from` by apply_hunks() (every hunk written,
/// none already there or failing) give `to` byte for byte. What an apply killed between the
/// write of the new path and the unlink of the old one leaves; never true for a copy. Reads
/// both files from `tree`; false when either cannot be read.
bool move_left_behind(const Tree& tree, const std::string& from, const std::string& to,
                      const FilePatch& fp, Direction direction, const MatchOptions& options);
/// Renames and copies: the pre-image lives at the old path, the post-image at the new path.
Status verify_move(Context& ctx, const std::string& old_path, const std::string& new_path,
                   const FilePatch& fp, FileReport& fr);

// locate.cpp: where a modified file lives when its path does not exist.

/// Tries --map prefixes, then candidates found by file name and content (see README,
/// "Relocation"). Returns false when nothing was found (the caller reports the missing file).
bool relocate(Context& ctx, const FilePatch& fp, const std::string& path, FileReport& fr);
/// True when the files of the tree named as `path`'s last component decide relocate()'s
/// verdict whatever the content search would add: one of them shares at least the parent
/// directory too (such a candidate outranks any found by content only), and they are few
/// enough to be all evaluated. `by_name` as RelocationSearch::by_name.
bool decided_by_name(const RelocationSearch& rs, const std::string& path);
/// The markers relocate() searches the tree for: the file patch's context and added lines.
std::vector<Marker> relocation_markers(const FilePatch& fp);
/// The path --map gives `path` when it exists in the tree, and the words saying so.
std::optional<std::pair<std::string, std::string>> map_path(const Context& ctx,
                                                            const std::string& path);
/// The missing path verify_file() would hand to relocate() for `fp` at `strip` (it must
/// search the tree for it), or std::nullopt.
std::optional<std::string> relocation_wanted(const FilePatch& fp, const Context& ctx,
                                             unsigned strip);

/// What the index line's blob ids say over a file's hunk matches (see text_by_blob()).
struct BlobDecision {
  /// The image the content's blob id equals (the post-image when both do); std::nullopt when
  /// the ids are missing, too short, or equal neither.
  std::optional<Image> image;
  std::size_t open = 0;  ///< hunks left open that the id decided
  /// The first hunk that says otherwise (its post-image, or pre-image, not found): the ids
  /// decide nothing then.
  std::optional<std::size_t> disagree;
};

/// The image whose `index` line blob id `content` has (the post-image when both), or
/// std::nullopt (no usable ids, or neither).
std::optional<Image> blob_image(const FilePatch& fp, std::string_view content);
/// Whether `fp` has a usable `index` line id (see blob_image()).
bool has_blob_ids(const FilePatch& fp);
/// blob_image() from the file's full blob id.
std::optional<Image> blob_image_of_id(const FilePatch& fp, std::string_view id);
/// Whether the `index` line id `patch_id` (one side's, maybe abbreviated) is usable and names
/// the blob whose full id is `full_id`.
bool blob_id_names(std::string_view patch_id, std::string_view full_id);
/// The same, from the file's blob id `id()` (called only when the patch has ids).
template <typename Id>
std::optional<Image> blob_image_by(const FilePatch& fp, Id&& id) {
  if (!has_blob_ids(fp)) return std::nullopt;
  return blob_image_of_id(fp, id());
}

/// A patch whose index line names the empty blob as the old file fills an empty file
/// (`@@ -0,0 +1,N @@`): its pre-image is the whole, empty file, which a file with lines is not.
/// Hunks `matches` reads applicable there by their empty pre-image become conflicts
/// (presence_reason "file-not-empty"); `git apply` refuses them too. Without the index line
/// nothing changes (`diff -U0` writes the same header for lines inserted at a file's top).
void refuse_fill_of_nonempty(const FilePatch& fp, const FileText& file,
                             const std::vector<HunkMatch*>& matches);

/// Settles, by `image` (blob_image() of `file`), the hunks the matcher could not: when `file`
/// is the post-image (pre-image) byte for byte and every hunk that says otherwise either had
/// both images match or has that image standing exactly where its header says (as it must:
/// a -U0 hunk whose other image is empty, one the matcher could not decide), those are set
/// applied (applicable), the latter placed at their header's lines. Otherwise (a hunk
/// disagrees: `disagree`) nothing is changed. The matcher should have been given `image` as
/// MatchOptions::prefer, so that hunks whose both images match carry that image's placement.
/// `matches` are those of `hunks`, in order. Used by verify and by the series passes alike,
/// so that apply writes what verify reports.
BlobDecision settle_by_blob(std::optional<Image> image, const std::vector<Hunk>& hunks,
                            const std::vector<HunkMatch*>& matches, const FileText& file);

// series.cpp: the patches of one run together.

/// One file patch's way through the series passes (see series.cpp).
struct SeriesUnit {
  std::size_t patch = 0, file = 0;  ///< indices into the run's patches and the patch's files
  bool shared = false;              ///< shares a file with another file patch of the run
  FileReport back;                  ///< judged with the later applied ones taken out
  bool undone = false;              ///< taken out in the backward pass (it was applied or partly)
  std::string undo_error;           ///< why it could not be taken out, when it was applied
  FileReport verdict;               ///< the series verdict
  bool from_back = false;           ///< the verdict is `back` (it was applied there)
  std::string redo_error;           ///< why it could not be put in in the forward pass
  /// The patch of the nearest earlier file patch on its files that the tree did not have and
  /// the forward pass put in before judging it (per file; other patches only).
  std::vector<std::size_t> needs;
  /// The patch of the nearest later file patch on its files taken out before judging it.
  std::vector<std::size_t> without;
  /// For a relocated file patch judged at its own path instead: the later patch of the run
  /// that moves the file to where relocation found it (see run_series()).
  std::optional<std::size_t> moved_by;
  /// For a relocated file patch judged at its own path instead: the earlier patch of the run
  /// that brings a file to that path (see run_series()).
  std::optional<std::size_t> brought_by;
  /// For a relocated file patch judged at its own path instead: the later patch of the run
  /// that deletes the file there (see run_series()).
  std::optional<std::size_t> deleted_by;
  /// An add or a delete the tree's verdict judged by its path missing alone: in a series that
  /// is no evidence (missing before the run makes the file, or after it takes it away).
  bool by_absence = false;
  /// Neither in nor out by what the tree holds: a file it needs is missing both before the
  /// run makes it and after the run takes it away, or such a file of its patch is and its own
  /// is there both before and after it (see placed_by_existence()). Judged as not made.
  bool ambiguous = false;
  /// Its file is, byte for byte (the `index` lines' blob ids), the state before this file
  /// patch or an earlier one on it (see pinned()): it is not in the tree, whatever its
  /// hunks read there (a revert's lines stand in the tree before what it reverts).
  bool pinned_out = false;
  /// Its file is, byte for byte, a state after this file patch and only such states (see
  /// pinned()): its change is in the tree, whatever its hunks read there (a later patch of the
  /// run that reverts some of its lines and makes other changes stands in the file).
  bool pinned_in = false;
  /// A later file patch of the run taken out in the backward pass removes every line this one
  /// adds (it reverts or moves this one's change): on the tree it was judged in with that one
  /// taken out, this one's `applied` is the series' answer, not the tree's `applicable` (the
  /// later patch could not have been made without it).
  bool lines_removed_later = false;
};

/// The passes over a run: per file patch (those sharing a file with another, or every one
/// with `every_unit`), and the overlay: `before` is what it held after the backward pass (the
/// tree without the series); `tree` holds the tree after the forward pass (with it).
struct SeriesResult {
  std::vector<SeriesUnit> units;
  std::map<std::string, OverlayTree::Node> before;
  std::unique_ptr<OverlayTree> tree;
};

/// Runs the backward and forward passes (see series.cpp) over the run's file patches that
/// `report` (from verify_patch_in over `base`) did not find in error.
/// `base_cache`, when given, is the cache `report` was judged with: files the passes leave
/// alone are not read again. `handles`: other handles on `base`'s tree (each used by one
/// thread only); when given and not `every_unit`, units on unrelated paths are judged on
/// up to one thread per handle more (series_components() in series.cpp), the same verdicts,
/// and the result's tree and before are left empty.
SeriesResult run_series(const std::vector<Patch>& patches, const VerifyReport& report,
                        const Tree& base, const VerifyOptions& options, bool every_unit,
                        FileCache* base_cache = nullptr,
                        std::span<const Tree* const> handles = {});

/// How to give a file back exactly as it was before change_file() rewrote its hunks in place.
struct FileUndo {
  bool valid = false;  ///< set only for an in-place hunk rewrite of one regular file or symlink
  std::string path;
  std::vector<HunkApply::Splice> splices;    ///< see HunkApply
  std::size_t size = 0;                      ///< the content written: its size and hash, to tell
  std::size_t hash = 0;                      ///< whether the file is still as it was left
  bool executable = false, symlink = false;  ///< the file's type and x bit before
  /// Where the hunks went, for the series passes to follow which lines a file patch wrote:
  /// the file's lines before, each hunk's match there (the placement apply_hunks() used) and
  /// the hunks written (0-based, in order; the others were already as wanted).
  std::size_t lines = 0;
  std::vector<HunkMatch> matches;
  std::vector<std::size_t> written;
};

/// Writes file patch `fp` (paths at `strip`) into `tree` in `direction`, only what is missing
/// (apply_hunks()); adds, deletes, renames, copies and modes included. Returns "" when done,
/// else why it cannot be (nothing written then). With `undo`, an in-place hunk rewrite records
/// how to give the file back (restore_file()). `judged`, when given, is verify_file()'s verdict
/// on `fp` in `tree` as it stands (same options): a modified file's hunks are then placed where
/// it matched them, not matched again. `in_place`: the run's choices of name for modifications
/// that name two files (else the name that exists in `tree`, see modified_path()).
std::string change_file(const FilePatch& fp, unsigned strip, OverlayTree& tree, FileCache& cache,
                        Direction direction, const MatchOptions& options,
                        const InPlaceNames* in_place, FileUndo* undo = nullptr,
                        const FileReport* judged = nullptr);

/// Gives the file `undo` names back its bytes and mode from before change_file(), when it still
/// holds what change_file() wrote (else returns false and changes nothing).
bool restore_file(const FileUndo& undo, OverlayTree& tree, FileCache& cache);

/// Judges the file patches of `report` that share a file with another file patch of the run
/// as a series (see series.cpp and verify()): their verdicts are replaced where the series
/// gives another one, with the reason and the patches it depends on.
/// `handles`: other handles on ctx.tree's tree, one per extra thread the passes may use (see
/// run_series()).
void judge_series(const std::vector<Patch>& patches, VerifyReport& report, Context& ctx,
                  std::span<const Tree* const> handles = {});

/// Puts the series verdicts of `series` (from run_series over `report`'s run) into `report`
/// where the tree alone could not decide (see series.cpp); units alone on their files are left
/// as the tree judged them.
void apply_series_verdicts(const SeriesResult& series, VerifyReport& report);

}  // namespace sm120check::detail
