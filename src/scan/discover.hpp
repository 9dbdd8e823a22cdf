// Discovery of installs under a scan's TARGET (see sm120check/scan.hpp). Internal to src/scan.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sm120check/catalog.hpp"
#include "sm120check/scan.hpp"
#include "sm120check/tree.hpp"

namespace sm120check::scan_detail {

/// A directory reached through a tree: `prefix` ("" = the tree's root) in `tree`.
struct Location {
  const Tree* tree = nullptr;
  std::string prefix;

  /// `rel` below the location, as a path of `tree`.
  std::string path(const std::string& rel) const { return prefix.empty() ? rel : prefix + "/" + rel; }
};

/// An install found, and where its files are read (tree null: not read, Install::unreadable).
struct FoundInstall {
  Install install;
  Location files;
  /// How an editable install's source is put before Python: a path line of a .pth (on sys.path,
  /// after the site-packages folder itself), a setuptools __editable__ finder (appended to
  /// sys.meta_path, after the path finder), a path line the classic easy-install.pth moves to
  /// sys.path's front (`sys.__egginsert`: before site-packages), a finder inserted first in
  /// sys.meta_path (scikit-build-core's redirect: before the path finder, so before
  /// everything), or not known (only direct_url.json or an .egg-link names it).
  enum class Reach { kUnknown, kFinder, kPathLine, kFrontPathLine, kFirstFinder };
  /// Per site-packages (relative to TARGET) that names the editable install: the strongest
  /// way found there (a path line outranks a finder: the path finder runs first).
  std::map<std::string, Reach> reach;
  /// For an editable install: the import names of its packages, from its dist-info's
  /// top_level.txt or its finder's MAPPING (a folder or module of that name is its own).
  std::vector<std::string> packages;
  /// For an editable install: the folder the pointer named, relative to the source root ("" =
  /// the root itself; the root may be a checkout above it).
  std::string named;
  /// Per (site-packages, way in): the rank of the first .pth line there that puts the source
  /// before Python, in the order site.addsitedir processes them (.pth files by sorted name,
  /// lines in order); lower is earlier. Tells apart two editable installs of one package.
  std::map<std::pair<std::string, Reach>, std::size_t> line_rank;
};

/// The shared objects of one install or distribution, for the kernel listing (not read yet).
struct ObjectSet {
  KernelGroup group;  ///< who they belong to; objects and fits empty
  const Tree* tree = nullptr;      ///< where `paths` are read
  std::vector<std::string> paths;  ///< paths of `tree`, sorted, distinct
  /// For a path of `paths` that is a symlink (a RECORD entry): the path of `tree` it leads to,
  /// read in its place (as the dynamic loader would).
  std::map<std::string, std::string> links;
  std::optional<std::size_t> found_install;  ///< index into Discovery::installs
};

/// True for a shared object's file name: ending ".so" or holding ".so." ("libx.so.12").
bool is_shared_object_name(std::string_view name);

/// True for the name of a file whose CUDA code scan lists: a shared object
/// (is_shared_object_name()), a bare cubin (".cubin"), PTX text (".ptx"), a bare fat binary
/// (".fatbin") or a static archive (".a"): the files `kernels` reads that an install ships.
bool is_kernel_file_name(std::string_view name);

/// The first field of a RECORD line (CSV: quoted when it holds a comma or quote, "" doubled).
std::string record_path(std::string_view line);

/// Everything discovery found.
struct Discovery {
  std::vector<FoundInstall> installs;
  /// With ScanOptions::kernels: every distribution of the site-packages walked (editable
  /// installs left out: their source trees hold the objects), then every source tree of
  /// `installs`, in walk order.
  std::vector<ObjectSet> objects;
  WalkStats walk;
  std::vector<std::string> notes;
  /// Trees opened outside TARGET (editable sources, git directories), kept open for reading.
  std::vector<std::unique_ptr<Tree>> outside;
};

/// Walks `target_tree` (TARGET, given as `target`) once and finds its installs: site-packages /
/// dist-packages (or a directory holding *.dist-info) with the catalog's distributions, their
/// editable installs (direct_url.json, __editable__*.pth and its finder's MAPPING, *.egg-link,
/// .pth path lines) and the source trees they point at, and git checkouts whose layout or remote
/// names a catalog project; with options.kernels, the shared objects of each (Discovery::objects:
/// RECORD lines, package folders walked, or the walk's files under a source tree). Throws Error
/// only when TARGET itself cannot be listed.
Discovery discover(const Tree& target_tree, const std::string& target, const Catalog& catalog,
                   const ScanOptions& options);

}  // namespace sm120check::scan_detail
