// Tree search for markers: a parallel, read-only walk of a directory that reports the lines
// holding fixed strings or PCRE2 regular expressions, the way `grep -rn` does. All markers run
// over a file in one pass (a literal set for the fixed strings; PCRE2 for each regular
// expression, line by line, after a search of the whole block where that cannot differ).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sm120check {

/// One string to search for.
struct Marker {
  /// Where a marker comes from: a hunk's added lines, a "Marker:" trailer in the patch header,
  /// a command-line option (--marker, --marker-regex, grep's PATTERN), or the hunk's pre-image
  /// (used internally by relocation).
  enum class Origin { kHunk, kTrailer, kOption, kContext };
  std::string text;    ///< the fixed string, or the regular expression (PCRE2 syntax).
  bool regex = false;  ///< `text` is a PCRE2 pattern (matched per line, multi-line mode).
  Origin origin = Origin::kOption;
  std::string file;  ///< for kHunk/kContext: the patch path (stripped) the hunk changes.
  /// Where a regular expression's line ends. false (grep, verify): as rg and grep -P read a
  /// line, its bytes up to the "\n", so a CRLF file's "\r" is the line's last byte (`\s`,
  /// `\r` and `.` match it; `b$` does not match "b\r"). true (the catalog of `scan`, whose
  /// truth is Python's str.splitlines()): a "\r" before the "\n" ends the line too, as with
  /// rg --crlf. Fixed strings ignore it (a line never holds its "\n"; "\r" is matched as a
  /// byte either way).
  bool crlf = false;
};

/// "hunk", "trailer", "option", "context".
std::string_view to_string(Marker::Origin origin);

/// One line holding a marker.
struct SearchHit {
  std::string path;      ///< relative to the searched root, "/"-separated.
  std::size_t line = 0;  ///< 1-based line number.
  std::string text;      ///< the line without its "\n" (and "\r"), cut at kMaxHitText bytes.
};

/// Lines longer than this are cut in SearchHit::text (minified files).
inline constexpr std::size_t kMaxHitText = 400;

/// The hits of one marker, sorted by path, then line.
struct MarkerHits {
  Marker marker;
  std::vector<SearchHit> hits;  ///< at most SearchOptions::max_hits_per_marker of them.
  std::size_t total = 0;        ///< all hits found, also those not kept.
  /// Lines a regular expression could not be evaluated on (PCRE2 gave up: match limit, depth
  /// limit), as "path:line: PCRE2's message", sorted, at most 20 kept. A marker with such lines
  /// and no hit is not known absent.
  std::vector<std::string> errors;
  std::size_t error_lines = 0;  ///< all such lines, also those not kept.
};

/// PCRE2's limits on one line's match (pcre2_set_match_limit, _depth_limit, _heap_limit; the
/// defaults are 10,000,000, 10,000,000 and 20 GiB). A line that needs more is not evaluated
/// (MarkerHits::errors: "match limit exceeded"), never read as "not found". With the JIT
/// (used whenever pcre2_jit_compile accepts the pattern; the depth and heap limits then do not
/// apply), `(a+)+$` on 24 a's and a "b" hit the default match limit after 14 ms; 100,000
/// bounds a line at about 0.3 ms, and real markers need far fewer (a literal start is found by
/// PCRE2's first-code-unit search before any backtracking).
inline constexpr std::uint32_t kRegexMatchLimit = 100'000;
inline constexpr std::uint32_t kRegexDepthLimit = 100'000;
inline constexpr std::uint32_t kRegexHeapLimitKib = 64u << 10;  ///< 64 MiB

/// Most stack a JIT-compiled regular expression may use on one line, per search thread
/// (pcre2_jit_stack_create's maximum; ripgrep's is the same 10 MiB). A match first runs on
/// PCRE2's default 32 KiB stack; a line that needs more is matched again on this one, made on
/// first need (address space reserved, pages used as touched). A group repeated once per byte
/// takes about 8 bytes of it per byte with PCRE2 10.42 (`(?:.)+ ` fits a 1 MB line, `(a|b)+ `
/// about 32 bytes a byte); a line that needs more is not evaluated ("JIT stack limit
/// reached" in MarkerHits::errors), never read as "not found".
inline constexpr std::size_t kRegexJitStackMax = 10u << 20;

/// Most worker threads a search uses (SearchOptions::threads is clamped to it).
inline constexpr unsigned kMaxSearchThreads = 16;

/// How to walk and what to skip.
struct SearchOptions {
  /// Files larger than this (bytes) are skipped and reported, not searched.
  std::uint64_t max_file_size = 32ull << 20;
  /// Worker threads; 0 = the number of CPUs; clamped to 1..kMaxSearchThreads.
  unsigned threads = 0;
  /// Skip what the target's .gitignore files exclude (via libgit2; only when TARGET is inside
  /// a git work tree). Off by default: deployed trees are not git checkouts.
  bool gitignore = false;
  /// Hits kept per marker (0 = all); the count in MarkerHits::total stays exact.
  std::size_t max_hits_per_marker = 0;
  /// Also return the relative path of every regular file walked (SearchResult::files).
  bool collect_files = false;
};

/// What a search found and what it left out.
struct SearchResult {
  std::vector<MarkerHits> markers;  ///< one per marker, in the order given.
  std::vector<std::string> files;   ///< sorted; only with SearchOptions::collect_files.
  std::size_t files_searched = 0;   ///< text files read and searched.
  std::uint64_t bytes_searched = 0;
  /// Files skipped as binary: a NUL byte in the first block read (256 KiB, or the first
  /// line when longer). A NUL byte further on ends the search of that file there (as ripgrep
  /// quits a file at the buffer holding one); such a file counts as searched.
  std::size_t skipped_binary = 0;
  std::size_t skipped_symlinks = 0;  ///< symlinks are never followed, to files or directories.
  std::size_t skipped_ignored = 0;   ///< excluded by .gitignore (SearchOptions::gitignore).
  std::vector<std::string> skipped_large;       ///< paths over max_file_size.
  std::vector<std::string> skipped_unreadable;  ///< "path: reason" for what could not be read.
};

/// Searches every regular file under `root` for `markers`, in parallel. Never follows a
/// symlink (to a file or a directory), skips `.git` directories, FIFOs, devices and sockets,
/// binary files and files over the size limit; never writes. A line holding several markers is
/// a hit of each. Throws Error when `root` is not a readable directory or a regular
/// expression does not compile (naming the pattern and the offset).
SearchResult search_tree(const std::string& root, const std::vector<Marker>& markers,
                         const SearchOptions& options = {});

class Tree;

/// search_tree() over a Tree that is not a directory on disk (a git revision: `verify --rev`),
/// through Tree::list() and Tree::read(), one file after the other: the same hits, counts and
/// skips (binary files, files over `options.max_file_size`, symlinks, `.git` directories) as
/// the walk of the same files on disk. `options.threads` and `options.gitignore` are ignored.
/// Files are read only when there are markers; `collect_files` lists them either way. Throws
/// Error when the root cannot be listed or a regular expression does not compile; a
/// subdirectory or file that cannot be read is counted in `skipped_unreadable`.
SearchResult search_tree(const Tree& tree, const std::vector<Marker>& markers,
                         const SearchOptions& options = {});

/// One line holding at least one marker, as a LineSink receives it.
struct LineMatch {
  std::size_t line = 0;   ///< 1-based line number.
  std::string_view text;  ///< the raw line without its "\n" (a "\r" before it kept), uncut.
};

/// Receives the lines of the file at `path` (relative to the root, "/"-separated) that hold a
/// marker, each line once, in line order. Called from the worker thread that searched the file,
/// once per block read (256 KiB; most files are one block), so a long file's lines may come in
/// several calls, in order. The text is valid only during the call. May throw: the search stops
/// and search_tree() rethrows.
using LineSink = std::function<void(std::string_view path, const std::vector<LineMatch>& lines)>;

/// search_tree() that hands each matching line to `sink` as it is found instead of keeping it:
/// memory stays bounded by the threads' buffers whatever the number of hits (grep's printer).
/// MarkerHits::hits stay empty; totals and errors are as above.
SearchResult search_tree(const std::string& root, const std::vector<Marker>& markers,
                         const SearchOptions& options, const LineSink& sink);

/// Markers compiled once, to search file contents already in memory without a tree walk (a
/// caller that holds the files, such as verification's file cache): the same lines, line
/// numbers, line text and error lines as search_tree() reports for that file. Built for a few
/// files: fixed strings go to an engine built in microseconds (sampled 4-to-8-byte anchors and
/// memcmp), regular expressions to PCRE2, the same engine as search_tree()'s.
/// search() and add() may be called from several threads at once.
class MarkerSearcher {
 public:
  /// Compiles `markers` (microseconds when all are fixed strings). Throws Error when a regular
  /// expression does not compile (naming the pattern and the offset).
  explicit MarkerSearcher(std::vector<Marker> markers);
  ~MarkerSearcher();
  MarkerSearcher(MarkerSearcher&&) noexcept;
  MarkerSearcher& operator=(MarkerSearcher&&) noexcept;

  /// The markers, in the order given.
  const std::vector<Marker>& markers() const { return markers_; }

  /// The hits of every marker in `content`, the text of the file at `path` (relative to the
  /// tree, "/"-separated; copied into each hit): one MarkerHits per marker, in order, hits in
  /// line order, at most `max_hits_per_marker` kept (0 = all), `total` exact. Content that
  /// search_tree() skips as binary (see SearchResult::skipped_binary) has no hits. Unlike
  /// search_tree(), no size limit applies: the caller has read the content already.
  std::vector<MarkerHits> search(std::string_view path, std::string_view content,
                                 std::size_t max_hits_per_marker = 0) const;

  /// search() of `content` with each hit's text taken from `shown` at the same bytes: `shown`
  /// is the file as read and `content` a view of it of the same size whose line breaks stand
  /// at the same offsets (its comments blanked: blank_comments() in sm120check/code_text.hpp),
  /// so that hits are found in the one and shown as the other. Throws Error when the sizes
  /// differ.
  std::vector<MarkerHits> search(std::string_view path, std::string_view content,
                                 std::string_view shown, std::size_t max_hits_per_marker) const;

  /// Adds the hits in `content` (the file at `path`, as for search()) to `into`, which is
  /// empty or holds one MarkerHits per marker from earlier calls: hits stay sorted by path,
  /// then line, at most `max_hits_per_marker` kept (0 = all), totals summed. Searching several
  /// files this way gives what search_tree() gives for them.
  void add(std::vector<MarkerHits>& into, std::string_view path, std::string_view content,
           std::size_t max_hits_per_marker = 0) const;

  /// Adds `found` (one file's search(), or hits joined so) to `into` as add() does: `into` is
  /// empty or holds as many MarkerHits; throws Error when the counts differ.
  static void merge(std::vector<MarkerHits>& into, std::vector<MarkerHits> found,
                    std::size_t max_hits_per_marker = 0);

 private:
  struct Compiled;
  std::vector<Marker> markers_;
  std::unique_ptr<Compiled> compiled_;
};

/// The hits of `markers` in one file's `content` at `path`: MarkerSearcher(markers).search().
/// Compiles the markers on every call; to search several files, keep a MarkerSearcher.
/// Throws Error for a regular expression that does not compile.
std::vector<MarkerHits> search_content(const std::vector<Marker>& markers, std::string_view path,
                                       std::string_view content,
                                       std::size_t max_hits_per_marker = 0);

/// Every line of `content` that holds `marker`, with 1-based line numbers, `path` copied into
/// each hit (for tests and small inputs). Throws Error for a regular expression that does not
/// compile.
std::vector<SearchHit> search_text(std::string_view content, const Marker& marker,
                                   const std::string& path = {});

}  // namespace sm120check
