// Tree search for markers (see search.hpp): a pool of threads takes directories from a shared
// queue, lists them with readdir(3) (d_type, no stat for most entries) and reads each regular
// file with read(2) in blocks of whole lines (kBlock bytes, more only for a longer line), so a
// thread holds one block, never a whole file. All fixed strings run over a block in one pass
// (a LiteralSet, literal_set.hpp); each regular expression runs through PCRE2 (JIT-compiled
// where supported), line by line as grep reads it, and where its meaning cannot differ between
// a line alone and the block (block_safe()), only on the lines from which a search of the
// whole block finds a match on. MarkerSearcher runs the same engine over contents already in
// memory. Symlinks are never followed.
//
// Vectorscan (Debian 12's libvectorscan 5.4.9) did this before, and missed matches: two escaped
// literals "num_stages" and "CUDA_CAPABILITY" over "x" * n + "CUDA_CAPABILITYyyyy" were not
// reported for 547 of 1,100 values of n on an AVX-512 host (a different count each run),
// regular expressions in prefilter mode likewise (VectorCamp/vectorscan#317 reports such a
// regression on x86). A search that says "not found" where the text is must never happen here:
// it is no longer used.
#include "sm120check/search.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <pcre2.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "../git/libgit2.hpp"
#include "literal_set.hpp"
#include "sm120check/cpus.hpp"
#include "sm120check/error.hpp"

namespace sm120check {
namespace {

/// Bytes read per block; a block is cut after its last "\n", the rest begins the next one.
constexpr std::size_t kBlock = 256 * 1024;
/// Most error lines kept per marker in MarkerHits::errors.
constexpr std::size_t kMaxErrorsKept = 20;

#if defined(__x86_64__)
/// Number of "\n" in [p, p + n), 16 bytes at a time.
std::size_t count_newlines(const char* p, std::size_t n) {
  std::size_t count = 0, i = 0;
  const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
  while (i + 16 <= n) {
    // Per-byte counters (cmpeq gives -1 per match) summed every 255 blocks with psadbw.
    __m128i acc = zero;
    for (int k = 0; k < 255 && i + 16 <= n; ++k, i += 16)
      acc = _mm_sub_epi8(
          acc, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), nl));
    __m128i sums = _mm_sad_epu8(acc, zero);
    count += static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
  for (; i < n; ++i) count += p[i] == '\n';
  return count;
}
#else
std::size_t count_newlines(const char* p, std::size_t n) {
  return static_cast<std::size_t>(std::count(p, p + n, '\n'));
}
#endif

struct Frees {
  void operator()(pcre2_match_data* md) const { pcre2_match_data_free(md); }
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
  void operator()(pcre2_match_context* mc) const { pcre2_match_context_free(mc); }
  void operator()(pcre2_jit_stack* js) const { pcre2_jit_stack_free(js); }
  void operator()(git_repository* r) const { git::libgit2().git_repository_free(r); }
};

/// Compiles a PCRE2 pattern (multi-line mode). Throws Error naming the pattern and offset.
std::unique_ptr<pcre2_code, Frees> compile_pcre2(const std::string& text) {
  int err = 0;
  PCRE2_SIZE err_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                                   PCRE2_MULTILINE, &err, &err_offset, nullptr);
  if (code == nullptr) {
    std::array<PCRE2_UCHAR, 256> buf{};
    pcre2_get_error_message(err, buf.data(), buf.size());
    throw Error(fmt::format("regular expression '{}' does not compile at offset {}: {}", text,
                            err_offset, reinterpret_cast<const char*>(buf.data())));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter on failure
  return std::unique_ptr<pcre2_code, Frees>(code);
}

std::string pcre2_message(int rc) {
  std::array<PCRE2_UCHAR, 256> buf{};
  pcre2_get_error_message(rc, buf.data(), buf.size());
  return reinterpret_cast<const char*>(buf.data());
}

/// A line of a block holding marker `marker` (or one its regular expression failed on).
struct Found {
  std::size_t begin = 0, end = 0;  ///< the line's bytes in the block, without "\n".
  std::size_t line = 0;            ///< 0-based, counted from the block's start.
  std::uint32_t marker = 0;
};

/// Every marker compiled together (see the file comment).
class Engine {
 public:
  /// What a thread needs to scan: PCRE2 match data and reused vectors.
  struct Scratch {
    std::vector<std::unique_ptr<pcre2_match_data, Frees>> md;         ///< per marker (regexes only)
    std::vector<std::pair<std::size_t, std::uint32_t>> pairs;         ///< (line begin, marker)
    std::vector<std::tuple<std::size_t, std::uint32_t, int>> failed;  ///< (line begin, marker, rc)
    detail::LiteralSet::Scratch literals;  ///< for the LiteralSet, when there is one
    /// This thread's JIT stack of up to kRegexJitStackMax bytes, and a copy of the engine's
    /// match context that uses it: made when a match first runs out of the default stack.
    std::unique_ptr<pcre2_jit_stack, Frees> jit_stack;
    std::unique_ptr<pcre2_match_context, Frees> large_stack_context;
  };

  explicit Engine(const std::vector<Marker>& markers) {
    match_context_.reset(pcre2_match_context_create(nullptr));
    if (!match_context_) throw Error("cannot allocate a PCRE2 match context");
    pcre2_set_match_limit(match_context_.get(), kRegexMatchLimit);
    pcre2_set_depth_limit(match_context_.get(), kRegexDepthLimit);
    pcre2_set_heap_limit(match_context_.get(), kRegexHeapLimitKib);
    std::vector<detail::Literal> set;
    for (const Marker& m : markers) {
      const auto id = static_cast<std::uint32_t>(kind_.size());
      block_safe_.push_back(false);
      crlf_.push_back(m.crlf);
      if (m.regex) {
        pcre_.push_back(compile_pcre2(m.text));
        kind_.push_back(Kind::kRegex);
        block_safe_.back() = block_safe(m.text);
        continue;
      }
      pcre_.emplace_back();
      if (m.text.empty()) {
        kind_.push_back(Kind::kEveryLine);
      } else if (m.text.find('\n') != std::string::npos) {
        kind_.push_back(Kind::kNever);  // a line never holds a line end
      } else {
        kind_.push_back(Kind::kLiteral);
        set.push_back({m.text, id});
      }
    }
    if (!set.empty()) literals_ = std::make_unique<detail::LiteralSet>(set);
  }

  std::size_t size() const { return kind_.size(); }

  std::unique_ptr<Scratch> make_scratch() const {
    auto s = std::make_unique<Scratch>();
    s->md.resize(kind_.size());
    for (std::size_t i = 0; i < kind_.size(); ++i)
      if (kind_[i] == Kind::kRegex)
        s->md[i].reset(pcre2_match_data_create_from_pattern(pcre_[i].get(), nullptr));
    return s;
  }

  /// Scans `block` (whole lines; the last may lack its "\n"); calls `found(Found)` for each
  /// (line, marker) pair once, in line order, then marker order, and `failed(Found, reason)`
  /// for each line a regular expression could not be evaluated on.
  template <typename OnFound, typename OnFailed>
  void scan(std::string_view block, Scratch& s, OnFound&& found, OnFailed&& failed) const {
    s.pairs.clear();
    s.failed.clear();
    if (block.empty()) return;
    if (literals_) literals_->scan(block, s.literals, s.pairs);
    for (std::size_t i = 0; i < kind_.size(); ++i) {
      const auto id = static_cast<std::uint32_t>(i);
      if (kind_[i] == Kind::kEveryLine) {
        for_each_line(block, 0, [&](std::size_t b, std::size_t) { s.pairs.emplace_back(b, id); });
      } else if (kind_[i] == Kind::kRegex) {
        scan_regex(block, id, s);
      }
    }
    std::sort(s.pairs.begin(), s.pairs.end());
    s.pairs.erase(std::unique(s.pairs.begin(), s.pairs.end()), s.pairs.end());
    std::size_t counted = 0, line = 0, last_b = std::string_view::npos, last_e = 0;
    auto locate = [&](std::size_t b) {
      if (b != last_b) {
        line += count_newlines(block.data() + counted, b - counted);
        counted = b;
        last_b = b;
        const void* nl = std::memchr(block.data() + b, '\n', block.size() - b);
        last_e = nl == nullptr
                     ? block.size()
                     : static_cast<std::size_t>(static_cast<const char*>(nl) - block.data());
      }
      return Found{b, last_e, line, 0};
    };
    if (s.failed.empty()) {
      for (const auto& [b, id] : s.pairs) {
        Found f = locate(b);
        f.marker = id;
        found(f);
      }
      return;
    }
    // Rare: merge the failures in line order.
    std::sort(s.failed.begin(), s.failed.end());
    std::size_t k = 0;
    for (const auto& [b, id] : s.pairs) {
      for (; k < s.failed.size() && std::get<0>(s.failed[k]) <= b; ++k)
        report_failed(s.failed[k], locate, failed);
      Found f = locate(b);
      f.marker = id;
      found(f);
    }
    for (; k < s.failed.size(); ++k) report_failed(s.failed[k], locate, failed);
  }

 private:
  enum class Kind { kLiteral, kRegex, kEveryLine, kNever };

  template <typename Locate, typename OnFailed>
  static void report_failed(const std::tuple<std::size_t, std::uint32_t, int>& f, Locate& locate,
                            OnFailed& failed) {
    Found at = locate(std::get<0>(f));
    at.marker = std::get<1>(f);
    failed(at, pcre2_message(std::get<2>(f)));
  }

  /// Calls `each(begin, end)` for every line of `block` from offset `from` (a line's start;
  /// "\n" excluded; no empty last line).
  template <typename Each>
  static void for_each_line(std::string_view block, std::size_t from, Each&& each) {
    std::size_t b = from;
    while (b < block.size()) {
      const void* nl = std::memchr(block.data() + b, '\n', block.size() - b);
      std::size_t e = nl == nullptr
                          ? block.size()
                          : static_cast<std::size_t>(static_cast<const char*>(nl) - block.data());
      each(b, e);
      b = e + 1;
    }
  }

  /// pcre2_match() of regular expression `id` on `length` bytes at `subject` from `start`,
  /// under the engine's limits: on PCRE2's default JIT stack, and once more on the thread's
  /// large one (kRegexJitStackMax) when that runs out.
  int match(std::uint32_t id, const char* subject, std::size_t length, std::size_t start,
            Scratch& s) const {
    const auto* text = reinterpret_cast<PCRE2_SPTR>(subject);
    int rc = pcre2_match(pcre_[id].get(), text, length, start, 0, s.md[id].get(),
                         match_context_.get());
    if (rc != PCRE2_ERROR_JIT_STACKLIMIT) return rc;
    if (!s.large_stack_context) {
      std::unique_ptr<pcre2_jit_stack, Frees> stack(
          pcre2_jit_stack_create(32 * 1024, kRegexJitStackMax, nullptr));
      std::unique_ptr<pcre2_match_context, Frees> context(
          pcre2_match_context_copy(match_context_.get()));
      if (!stack || !context) return rc;  // no memory for it: the line stays not evaluated
      pcre2_jit_stack_assign(context.get(), nullptr, stack.get());
      s.jit_stack = std::move(stack);
      s.large_stack_context = std::move(context);
    }
    return pcre2_match(pcre_[id].get(), text, length, start, 0, s.md[id].get(),
                       s.large_stack_context.get());
  }

  /// Matches regular expression `id` against the line [b, e) of `block` alone, as grep does
  /// (a "\r" before its end cut only for a Marker::crlf marker): records a hit or a failure;
  /// true when it matched.
  bool match_line(std::string_view block, std::size_t b, std::size_t e, std::uint32_t id,
                  Scratch& s) const {
    std::string_view text = block.substr(b, e - b);
    if (crlf_[id] && !text.empty() && text.back() == '\r') text.remove_suffix(1);
    const int rc = match(id, text.data(), text.size(), 0, s);
    if (rc >= 0) {
      s.pairs.emplace_back(b, id);
      return true;
    }
    if (rc != PCRE2_ERROR_NOMATCH) s.failed.emplace_back(b, id, rc);
    return false;
  }

  /// The lines of `block` regular expression `id` matches, line by line: an expression never
  /// matches across a line end (`\s`, `[^x]`), and a line PCRE2 gives up on (match limit)
  /// costs only that line. For a block_safe() expression, a line's own match is also a match
  /// of the whole block starting at the same byte, so a search of the block from a line's
  /// start finds the first line that can match (or none): lines before it are skipped. A
  /// search of the block that fails (a limit) leaves the rest of the block to the lines alone.
  void scan_regex(std::string_view block, std::uint32_t id, Scratch& s) const {
    if (!block_safe_[id]) {
      for_each_line(block, 0,
                    [&](std::size_t b, std::size_t e) { match_line(block, b, e, id, s); });
      return;
    }
    std::size_t from = 0;  // a line's start: no line before it is left to match
    while (from < block.size()) {
      const int rc = match(id, block.data(), block.size(), from, s);
      if (rc == PCRE2_ERROR_NOMATCH) return;
      if (rc < 0) {  // the whole block was too much: each line alone from here
        for_each_line(block, from,
                      [&](std::size_t b, std::size_t e) { match_line(block, b, e, id, s); });
        return;
      }
      const std::size_t start = pcre2_get_ovector_pointer(s.md[id].get())[0];
      // The line holding the match's start; a match starting at a "\n" (one that can match
      // empty text, say) starts before the next line.
      std::size_t b = start;
      while (b > from && block[b - 1] != '\n') --b;
      const void* nl = std::memchr(block.data() + start, '\n', block.size() - start);
      const std::size_t e =
          nl == nullptr ? block.size()
                        : static_cast<std::size_t>(static_cast<const char*>(nl) - block.data());
      match_line(block, b, e, id, s);
      from = e + 1;
    }
  }

  /// Whether every match regular expression `re` finds in a line alone (a Marker::crlf one
  /// with its "\r" cut) is also a match found in the whole block starting at the same byte
  /// (multi-line mode), so that a failed search of the block rules every line out: not so for
  /// `$` before a cut "\r" (crlf; `$` is left to the lines alone either way), for the anchors
  /// of a whole subject (\A, \Z, \z, \G), for lookaround, which can see past a line's ends,
  /// for \K, for backtracking verbs and callouts ("(*", "(?C"), and for atomic groups and
  /// possessive quantifiers, which can take a line end the line alone lacks and then not give
  /// it back (`a\s*+\B` matches "a " alone, not in "a \nx"). Conservative: these spelled
  /// anywhere in the pattern, even escaped, leave it to the lines alone.
  static bool block_safe(std::string_view re) {
    if (re.find('$') != std::string_view::npos) return false;
    for (std::string_view a : {"\\A", "\\Z", "\\z", "\\G", "\\K", "(?=", "(?!", "(?<", "(*",
                               "(?C", "(?*", "(?^", "(?|", "*+", "++", "?+", "}+"})
      if (re.find(a) != std::string_view::npos) return false;
    // Option settings (?i), (?s), (?m)... inside: (?s) would let "." cross a line end, which
    // is fine, but (?-m) changes "^": left to the lines too.
    for (std::size_t k = re.find("(?"); k != std::string_view::npos; k = re.find("(?", k + 2))
      if (k + 2 < re.size() && re[k + 2] != ':') return false;
    return true;
  }

  std::vector<Kind> kind_;
  std::vector<bool> block_safe_;
  std::vector<bool> crlf_;  ///< per marker: Marker::crlf
  std::vector<std::unique_ptr<pcre2_code, Frees>> pcre_;
  /// The limits of every pcre2_match() (read only while scanning: shared by the threads).
  std::unique_ptr<pcre2_match_context, Frees> match_context_;
  std::unique_ptr<detail::LiteralSet> literals_;  ///< the fixed strings, when there are some
};

/// How a file's scan ended.
struct FileScan {
  bool binary = false;      ///< a block held a NUL byte: it and the rest were not searched.
  bool searched = false;    ///< at least one block was searched (before any NUL byte).
  std::uint64_t bytes = 0;  ///< bytes searched.
  int error = 0;            ///< errno of a failed read.
};

/// Where scan_blocks() gets its blocks: a file read(2) into a buffer, or text already in memory.
/// fill(carry, eof) returns the window whose first `carry` bytes are the unfinished line kept
/// from the block before, followed by what was read now (at most kBlock bytes past `carry`, or
/// more once a long line made the buffer grow), -1 in `error` with errno on failure; it sets
/// `eof` when nothing follows. consume(cut) drops the window's first `cut` bytes.
template <typename Read>
class ReadSource {
 public:
  /// `read(into, max, eof) -> ssize_t` as read(2) (-1 with errno; sets `eof` when nothing follows).
  ReadSource(std::vector<char>& buffer, Read& read) : buffer_(buffer), read_(read) {}
  std::string_view fill(std::size_t carry, bool& eof, int& error) {
    if (buffer_.size() < carry + kBlock) buffer_.resize(carry + kBlock);
    ssize_t n = 0;
    do n = read_(buffer_.data() + carry, buffer_.size() - carry, eof);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      error = errno;
      return {};
    }
    if (n == 0) eof = true;
    return {buffer_.data(), carry + static_cast<std::size_t>(n)};
  }
  void consume(std::size_t cut, std::size_t carry) {
    std::memmove(buffer_.data(), buffer_.data() + cut, carry);
  }

 private:
  std::vector<char>& buffer_;
  Read& read_;
};

/// The same windows over text in memory, without copying it: what ReadSource would hold had
/// the text been read from a file.
class MemorySource {
 public:
  explicit MemorySource(std::string_view text) : text_(text) {}
  std::string_view fill(std::size_t carry, bool& eof, int& /*error*/) {
    capacity_ = std::max(capacity_, carry + kBlock);  // as ReadSource's buffer grows
    const std::size_t fresh = std::min(capacity_ - carry, text_.size() - (begin_ + carry));
    if (begin_ + carry + fresh == text_.size()) eof = true;
    return text_.substr(begin_, carry + fresh);
  }
  void consume(std::size_t cut, std::size_t /*carry*/) { begin_ += cut; }

 private:
  std::string_view text_;
  std::size_t begin_ = 0, capacity_ = 0;
};

/// Scans a file block by block from `source` (ReadSource, MemorySource), each block of whole
/// lines with `engine`: `emit(block, Found)` per (line, marker), `fail(block, Found, reason)`,
/// then `block_done()`; Found::line is the file's 1-based line number. Reads at most `limit`
/// bytes. A block holding a NUL byte is not searched and ends the scan, as ripgrep quits a file
/// at the buffer where it meets one (so a file whose first NUL lies in its first kBlock bytes
/// prints nothing). Blocks grow past kBlock only to hold a longer line.
template <typename Source, typename Emit, typename Fail, typename BlockDone>
FileScan scan_blocks(const Engine& engine, Engine::Scratch& s, Source& source,
                     std::uint64_t limit, Emit&& emit, Fail&& fail, BlockDone&& block_done) {
  FileScan r;
  std::size_t carry = 0, line = 1;
  std::uint64_t total = 0;
  bool eof = false;
  while (!eof) {
    const std::string_view window = source.fill(carry, eof, r.error);
    if (r.error != 0) return r;
    auto fresh = window.size() - carry;
    if (total + fresh >= limit) {  // grew while reading: searched as far as the limit
      fresh = static_cast<std::size_t>(limit - total);
      eof = true;
    }
    total += fresh;
    if (fresh != 0 && std::memchr(window.data() + carry, 0, fresh) != nullptr) {
      r.binary = true;
      return r;
    }
    const std::size_t have = carry + fresh;
    std::size_t cut = have;
    if (!eof) {
      // The carried bytes hold no "\n" (they follow the last one, or none was found): only
      // the fresh ones are looked at, so a long line is read in one pass, not once a block.
      const void* nl = ::memrchr(window.data() + carry, '\n', fresh);
      if (nl == nullptr) {  // a line longer than the buffer: read on
        carry = have;
        continue;
      }
      cut = static_cast<std::size_t>(static_cast<const char*>(nl) - window.data()) + 1;
    }
    const std::string_view block = window.substr(0, cut);
    engine.scan(
        block, s,
        [&](Found f) {
          f.line += line;
          emit(block, f);
        },
        [&](Found f, const std::string& why) {
          f.line += line;
          fail(block, f, why);
        });
    r.searched = true;
    r.bytes += cut;
    block_done();
    if (eof) break;
    line += count_newlines(block.data(), cut);
    carry = have - cut;
    source.consume(cut, carry);
  }
  return r;
}

/// `text` without a trailing "\r", cut at kMaxHitText bytes (SearchHit::text).
std::string hit_text(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return std::string(text.substr(0, kMaxHitText));
}

/// What one worker found; merged at the end.
struct Partial {
  std::vector<std::vector<SearchHit>> hits;      ///< per marker (without a sink)
  std::vector<std::size_t> totals;               ///< per marker: lines holding it
  std::vector<std::vector<std::string>> errors;  ///< per marker, at most kMaxErrorsKept
  std::vector<std::size_t> error_lines;          ///< per marker
  std::vector<std::string> files;
  SearchResult counts;
};

class Walker {
 public:
  Walker(std::string root, const std::vector<Marker>& markers, const SearchOptions& options,
         const LineSink* sink)
      : root_(std::move(root)),
        options_(options),
        engine_(markers),
        sink_(sink) {
    if (options_.gitignore) open_repository();
  }
  ~Walker() = default;
  Walker(const Walker&) = delete;
  Walker& operator=(const Walker&) = delete;

  SearchResult run(const std::vector<Marker>& markers) {
    unsigned threads = options_.threads;
    if (threads == 0) threads = usable_cpus();
    threads = std::clamp(threads, 1u, kMaxSearchThreads);
    std::vector<Partial> partials(threads);
    queue_.push_back(std::string());
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
      try {
        pool.emplace_back([this, &partials, t] { work(partials[t]); });
      } catch (const std::system_error&) {
        break;  // the system gives no more threads: search with those there are
      }
    }
    work(partials[0]);
    for (std::thread& th : pool) th.join();
    if (error_) std::rethrow_exception(error_);
    return merge(markers, partials);
  }

 private:
  void open_repository() {
    const git::Libgit2& lib = git::libgit2();
    git_repository* repo = nullptr;
    if (lib.git_repository_open_ext(&repo, root_.c_str(), 0, nullptr) != 0) return;
    std::unique_ptr<git_repository, Frees> guard(repo);
    const char* workdir = lib.git_repository_workdir(repo);
    char* real = ::realpath(root_.c_str(), nullptr);
    if (workdir == nullptr || real == nullptr) {
      std::free(real);
      return;
    }
    std::string abs = std::string(real) + "/", wd = workdir;
    std::free(real);
    if (abs.compare(0, wd.size(), wd) != 0) return;
    repo_path_ = lib.git_repository_path(repo);
    git_prefix_ = abs.substr(wd.size());
  }

  /// Each worker opens its own repository handle: libgit2 objects are not shared by threads.
  bool ignored(git_repository* repo, const std::string& rel) const {
    if (repo == nullptr) return false;
    int ig = 0;
    std::string path = git_prefix_ + rel;
    return git::libgit2().git_ignore_path_is_ignored(&ig, repo, path.c_str()) == 0 && ig == 1;
  }

  void work(Partial& part) {
    const std::size_t n = engine_.size();
    part.hits.resize(n);
    part.totals.assign(n, 0);
    part.errors.resize(n);
    part.error_lines.assign(n, 0);
    bool listing = false;  // this worker counts in active_
    try {
      std::unique_ptr<Engine::Scratch> scratch = engine_.make_scratch();
      std::unique_ptr<git_repository, Frees> repo;
      if (!repo_path_.empty()) {
        git_repository* r = nullptr;
        if (git::libgit2().git_repository_open(&r, repo_path_.c_str()) == 0) repo.reset(r);
      }
      std::vector<char> buffer;
      for (;;) {
        std::string dir;
        {
          std::unique_lock lock(mutex_);
          cv_.wait(lock, [this] { return !queue_.empty() || active_ == 0; });
          if (queue_.empty() || error_) return;  // nothing queued and nobody can queue more
          dir = std::move(queue_.front());
          queue_.pop_front();
          ++active_;
          listing = true;
        }
        list_directory(dir, part, *scratch, repo.get(), buffer);
        {
          std::lock_guard lock(mutex_);
          --active_;
          listing = false;
        }
        cv_.notify_all();
      }
    } catch (...) {
      // The sink may throw (a closed output): stop every worker and rethrow in run().
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      queue_.clear();
      if (listing) --active_;
      cv_.notify_all();
    }
  }

  void list_directory(const std::string& rel, Partial& part, Engine::Scratch& scratch,
                      git_repository* repo, std::vector<char>& buffer) {
    std::string full = rel.empty() ? root_ : root_ + "/" + rel;
    int fd = ::open(full.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      part.counts.skipped_unreadable.push_back(
          fmt::format("{}: {}", rel.empty() ? "." : rel, std::strerror(errno)));
      return;
    }
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      ::close(fd);
      return;
    }
    std::vector<std::string> subdirs;
    while (dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode)   ? DT_DIR
               : S_ISREG(st.st_mode) ? DT_REG
               : S_ISLNK(st.st_mode) ? DT_LNK
                                     : DT_UNKNOWN;
      }
      std::string child = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
      if (type == DT_DIR) {
        if (name == ".git") continue;
        if (ignored(repo, child + "/")) {
          ++part.counts.skipped_ignored;
          continue;
        }
        subdirs.push_back(std::move(child));
      } else if (type == DT_REG) {
        if (ignored(repo, child)) {
          ++part.counts.skipped_ignored;
          continue;
        }
        search_file(fd, e->d_name, child, part, scratch, buffer);
      } else if (type == DT_LNK) {
        ++part.counts.skipped_symlinks;
      }  // FIFOs, sockets and devices are never opened
    }
    ::closedir(d);
    if (!subdirs.empty()) {
      {
        std::lock_guard lock(mutex_);
        for (std::string& s : subdirs) queue_.push_back(std::move(s));
      }
      cv_.notify_all();
    }
  }

  void search_file(int dir_fd, const char* name, const std::string& rel, Partial& part,
                   Engine::Scratch& scratch, std::vector<char>& buffer) {
    int fd = ::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      part.counts.skipped_unreadable.push_back(fmt::format("{}: {}", rel, std::strerror(errno)));
      return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return;
    }
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > options_.max_file_size) {
      ::close(fd);
      part.counts.skipped_large.push_back(rel);
      return;
    }
    if (options_.collect_files) part.files.push_back(rel);
    if (engine_.size() == 0) {
      ::close(fd);
      return;
    }
    std::uint64_t left = size;  // what fstat(2) promised: spares the read(2) that returns 0
    auto read = [&](char* into, std::size_t max, bool& eof) -> ssize_t {
      ssize_t n = ::read(fd, into, max);
      if (n > 0) {
        left -= std::min<std::uint64_t>(left, static_cast<std::uint64_t>(n));
        if (left == 0) eof = true;
      }
      return n;
    };
    lines_.clear();
    ReadSource source(buffer, read);
    FileScan r = scan_blocks(
        engine_, scratch, source, options_.max_file_size,
        [&](std::string_view block, const Found& f) {
          ++part.totals[f.marker];
          std::string_view text = block.substr(f.begin, f.end - f.begin);
          if (sink_ != nullptr) {
            if (lines_.empty() || lines_.back().line != f.line) lines_.push_back({f.line, text});
          } else {
            part.hits[f.marker].push_back({rel, f.line, hit_text(text)});
          }
        },
        [&](std::string_view, const Found& f, const std::string& why) {
          ++part.error_lines[f.marker];
          if (part.errors[f.marker].size() < kMaxErrorsKept)
            part.errors[f.marker].push_back(fmt::format("{}:{}: {}", rel, f.line, why));
        },
        [&] {
          if (sink_ != nullptr && !lines_.empty()) (*sink_)(rel, lines_);
          lines_.clear();
        });
    ::close(fd);
    if (r.error != 0) {
      part.counts.skipped_unreadable.push_back(fmt::format("{}: {}", rel, std::strerror(r.error)));
      return;
    }
    if (r.binary && !r.searched) {
      ++part.counts.skipped_binary;
      return;
    }
    ++part.counts.files_searched;
    part.counts.bytes_searched += r.bytes;
  }

  SearchResult merge(const std::vector<Marker>& markers, std::vector<Partial>& partials) const {
    SearchResult r;
    auto before = [](const SearchHit& a, const SearchHit& b) {
      return a.path != b.path ? a.path < b.path : a.line < b.line;
    };
    for (std::size_t i = 0; i < markers.size(); ++i) {
      MarkerHits mh{markers[i], {}, 0, {}, 0};
      for (Partial& p : partials) {
        if (i >= p.hits.size()) continue;  // a worker that never started
        std::move(p.hits[i].begin(), p.hits[i].end(), std::back_inserter(mh.hits));
        std::move(p.errors[i].begin(), p.errors[i].end(), std::back_inserter(mh.errors));
        mh.total += p.totals[i];
        mh.error_lines += p.error_lines[i];
      }
      std::sort(mh.hits.begin(), mh.hits.end(), before);
      if (options_.max_hits_per_marker != 0 && mh.hits.size() > options_.max_hits_per_marker)
        mh.hits.resize(options_.max_hits_per_marker);
      std::sort(mh.errors.begin(), mh.errors.end());
      if (mh.errors.size() > kMaxErrorsKept) mh.errors.resize(kMaxErrorsKept);
      r.markers.push_back(std::move(mh));
    }
    for (Partial& p : partials) {
      std::move(p.files.begin(), p.files.end(), std::back_inserter(r.files));
      const SearchResult& c = p.counts;
      r.files_searched += c.files_searched;
      r.bytes_searched += c.bytes_searched;
      r.skipped_binary += c.skipped_binary;
      r.skipped_symlinks += c.skipped_symlinks;
      r.skipped_ignored += c.skipped_ignored;
      r.skipped_large.insert(r.skipped_large.end(), c.skipped_large.begin(), c.skipped_large.end());
      r.skipped_unreadable.insert(r.skipped_unreadable.end(), c.skipped_unreadable.begin(),
                                  c.skipped_unreadable.end());
    }
    std::sort(r.files.begin(), r.files.end());
    std::sort(r.skipped_large.begin(), r.skipped_large.end());
    std::sort(r.skipped_unreadable.begin(), r.skipped_unreadable.end());
    return r;
  }

  std::string root_;
  SearchOptions options_;
  Engine engine_;
  const LineSink* sink_;
  static thread_local std::vector<LineMatch> lines_;  // this worker's lines of the current block
  std::string repo_path_, git_prefix_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::size_t active_ = 0;
  std::exception_ptr error_;
};

thread_local std::vector<LineMatch> Walker::lines_;

SearchResult run_search(const std::string& root, const std::vector<Marker>& markers,
                        const SearchOptions& options, const LineSink* sink) {
  struct stat st {};
  if (root.empty()) throw Error("target path is empty");
  if (::stat(root.c_str(), &st) != 0) {
    int err = errno;
    throw Error(root, 0,
                err == ENOENT ? "target does not exist"
                              : "cannot examine target: " + std::string(std::strerror(err)));
  }
  if (!S_ISDIR(st.st_mode)) throw Error(root, 0, "target is not a directory");
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  Walker walker(std::move(base), markers, options, sink);
  return walker.run(markers);
}

}  // namespace

SearchResult search_tree(const std::string& root, const std::vector<Marker>& markers,
                         const SearchOptions& options) {
  return run_search(root, markers, options, nullptr);
}

SearchResult search_tree(const std::string& root, const std::vector<Marker>& markers,
                         const SearchOptions& options, const LineSink& sink) {
  return run_search(root, markers, options, &sink);
}

struct MarkerSearcher::Compiled {
  explicit Compiled(const std::vector<Marker>& markers)
      : engine(markers) {}
  Engine engine;
  std::mutex mutex;
  std::vector<std::unique_ptr<Engine::Scratch>> idle;  ///< scratch not in use by a thread

  std::unique_ptr<Engine::Scratch> take() {
    {
      std::lock_guard lock(mutex);
      if (!idle.empty()) {
        std::unique_ptr<Engine::Scratch> s = std::move(idle.back());
        idle.pop_back();
        return s;
      }
    }
    return engine.make_scratch();
  }
  void give(std::unique_ptr<Engine::Scratch> s) {
    std::lock_guard lock(mutex);
    idle.push_back(std::move(s));
  }
};

MarkerSearcher::MarkerSearcher(std::vector<Marker> markers)
    : markers_(std::move(markers)), compiled_(std::make_unique<Compiled>(markers_)) {}
MarkerSearcher::~MarkerSearcher() = default;
MarkerSearcher::MarkerSearcher(MarkerSearcher&&) noexcept = default;
MarkerSearcher& MarkerSearcher::operator=(MarkerSearcher&&) noexcept = default;

std::vector<MarkerHits> MarkerSearcher::search(std::string_view path, std::string_view content,
                                               std::size_t max_hits_per_marker) const {
  return search(path, content, content, max_hits_per_marker);
}

std::vector<MarkerHits> MarkerSearcher::search(std::string_view path, std::string_view content,
                                               std::string_view shown,
                                               std::size_t max_hits_per_marker) const {
  if (shown.size() != content.size())
    throw Error(fmt::format("{}: shown text of {} bytes for content of {}", path, shown.size(),
                            content.size()));
  std::vector<MarkerHits> out;
  out.reserve(markers_.size());
  for (const Marker& m : markers_) out.push_back({m, {}, 0, {}, 0});
  if (markers_.empty()) return out;
  const std::string where(path);
  std::unique_ptr<Engine::Scratch> scratch = compiled_->take();
  // The same blocks as search_tree() reads, so that a NUL byte ends the search alike.
  MemorySource source(content);
  scan_blocks(
      compiled_->engine, *scratch, source, content.size(),
      [&](std::string_view block, const Found& f) {
        MarkerHits& mh = out[f.marker];
        ++mh.total;
        if (max_hits_per_marker == 0 || mh.hits.size() < max_hits_per_marker)
          // `block` lies in `content`: the same bytes of `shown` are the line as shown.
          mh.hits.push_back({where, f.line,
                             hit_text(shown.substr(
                                 static_cast<std::size_t>(block.data() - content.data()) + f.begin,
                                 f.end - f.begin))});
      },
      [&](std::string_view, const Found& f, const std::string& why) {
        MarkerHits& mh = out[f.marker];
        ++mh.error_lines;
        if (mh.errors.size() < kMaxErrorsKept)
          mh.errors.push_back(fmt::format("{}:{}: {}", where, f.line, why));
      },
      [] {});
  compiled_->give(std::move(scratch));
  return out;
}

void MarkerSearcher::add(std::vector<MarkerHits>& into, std::string_view path,
                         std::string_view content, std::size_t max_hits_per_marker) const {
  merge(into, search(path, content, max_hits_per_marker), max_hits_per_marker);
}

void MarkerSearcher::merge(std::vector<MarkerHits>& into, std::vector<MarkerHits> found,
                           std::size_t max_hits_per_marker) {
  if (into.empty()) {
    into = std::move(found);
    return;
  }
  if (into.size() != found.size())
    throw Error(fmt::format("marker hits of {} markers given to a searcher of {}", into.size(),
                            found.size()));
  auto before = [](const SearchHit& a, const SearchHit& b) {
    return a.path != b.path ? a.path < b.path : a.line < b.line;
  };
  for (std::size_t i = 0; i < into.size(); ++i) {
    std::vector<SearchHit>& hits = into[i].hits;
    auto middle = static_cast<std::ptrdiff_t>(hits.size());
    std::move(found[i].hits.begin(), found[i].hits.end(), std::back_inserter(hits));
    std::inplace_merge(hits.begin(), hits.begin() + middle, hits.end(), before);
    if (max_hits_per_marker != 0 && hits.size() > max_hits_per_marker)
      hits.resize(max_hits_per_marker);
    into[i].total += found[i].total;
    into[i].error_lines += found[i].error_lines;
    for (std::string& e : found[i].errors)
      if (into[i].errors.size() < kMaxErrorsKept) into[i].errors.push_back(std::move(e));
  }
}

std::vector<MarkerHits> search_content(const std::vector<Marker>& markers, std::string_view path,
                                       std::string_view content, std::size_t max_hits_per_marker) {
  return MarkerSearcher(markers).search(path, content, max_hits_per_marker);
}

std::vector<SearchHit> search_text(std::string_view content, const Marker& marker,
                                   const std::string& path) {
  // The whole content as one block: no binary rule here (tests and small inputs).
  Engine engine({marker});
  std::unique_ptr<Engine::Scratch> scratch = engine.make_scratch();
  std::vector<SearchHit> hits;
  const std::size_t line = 1;
  engine.scan(
      content, *scratch,
      [&](const Found& f) {
        hits.push_back({path, f.line + line, hit_text(content.substr(f.begin, f.end - f.begin))});
      },
      [](const Found&, const std::string&) {});
  return hits;
}

}  // namespace sm120check
