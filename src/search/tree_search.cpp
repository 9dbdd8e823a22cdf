// search_tree() over a Tree (search.hpp): the marker search of a tree that is not on disk.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/search.hpp"
#include "sm120check/tree.hpp"

namespace sm120check {
namespace {

/// Bytes looked at for a NUL byte, as search_tree() on disk reads its first block.
constexpr std::size_t kBinaryProbe = std::size_t{256} << 10;
/// Error lines kept per marker (MarkerHits::errors).
constexpr std::size_t kMaxErrorsKept = 20;

}  // namespace

SearchResult search_tree(const Tree& tree, const std::vector<Marker>& markers,
                         const SearchOptions& options) {
  SearchResult r;
  // The names first, sorted as the search on disk reports them; then the files in that order
  // (MarkerSearcher::add() keeps hits sorted by path when files come sorted).
  std::vector<std::string> files;
  std::vector<std::string> dirs{""};
  bool root = true;
  while (!dirs.empty()) {
    const std::string dir = std::move(dirs.back());
    dirs.pop_back();
    std::vector<Tree::DirEntry> entries;
    try {
      entries = tree.list(dir);
    } catch (const Error& e) {
      if (root) throw;
      r.skipped_unreadable.push_back(dir + ": " + e.what());
      continue;
    }
    root = false;
    for (const Tree::DirEntry& e : entries) {
      const std::string path = dir.empty() ? e.name : dir + "/" + e.name;
      if (e.type == Entry::Type::kDirectory && e.name != ".git") dirs.push_back(path);
      if (e.type == Entry::Type::kSymlink) ++r.skipped_symlinks;
      if (e.type == Entry::Type::kFile) files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<MarkerHits> hits;
  for (const Marker& m : markers) hits.push_back(MarkerHits{m, {}, 0, {}, 0});
  if (!markers.empty()) {
    const MarkerSearcher searcher(markers);
    for (const std::string& path : files) {
      std::string content;
      try {
        if (tree.stat(path).size > options.max_file_size) {
          r.skipped_large.push_back(path);
          continue;
        }
        content = tree.read(path);
      } catch (const Error& err) {
        r.skipped_unreadable.push_back(path + ": " + err.what());
        continue;
      }
      if (std::memchr(content.data(), '\0', std::min(content.size(), kBinaryProbe)) != nullptr) {
        ++r.skipped_binary;
        continue;
      }
      ++r.files_searched;
      r.bytes_searched += content.size();
      // Files come in path order: each file's hits go after the ones before (no merge).
      std::vector<MarkerHits> found = searcher.search(path, content, 0);
      for (std::size_t i = 0; i < hits.size(); ++i) {
        MarkerHits& into = hits[i];
        const std::size_t room = options.max_hits_per_marker == 0
                                     ? found[i].hits.size()
                                     : options.max_hits_per_marker -
                                           std::min(options.max_hits_per_marker, into.hits.size());
        const std::size_t take = std::min(room, found[i].hits.size());
        std::move(found[i].hits.begin(), found[i].hits.begin() + static_cast<std::ptrdiff_t>(take),
                  std::back_inserter(into.hits));
        into.total += found[i].total;
        into.error_lines += found[i].error_lines;
        for (std::string& e : found[i].errors)
          if (into.errors.size() < kMaxErrorsKept) into.errors.push_back(std::move(e));
      }
    }
  }
  r.markers = std::move(hits);
  if (options.collect_files) r.files = std::move(files);
  return r;
}

}  // namespace sm120check
