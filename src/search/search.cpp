// Tree search for markers (see search.hpp): a pool of threads takes directories from a shared
// queue, lists them with readdir(3) (d_type, no stat for most entries) and reads each regular
// file with read(2) in blocks of whole lines (kBlock bytes, more only for a longer line), so a
// thread holds one block, never a whole file. All markers run over a block in one pass: one
// Vectorscan database holds every fixed string (as an escaped literal) and, in prefilter mode,
// every regular expression it accepts; PCRE2 (JIT-compiled where supported) then runs line by
// line only the expressions the prefilter let through and those Vectorscan refuses
// (backreferences, lookaround, anchors whose meaning differs per line). MarkerSearcher runs the
// same engine over contents already in memory, except that its fixed strings go to a LiteralSet
// (literal_set.hpp: built in microseconds, where a Vectorscan compile costs milliseconds) and
// its database, compiled only when it has regular expressions, holds just their prefilters.
// Symlinks are never followed.
#include "sm120check/search.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <hs/hs.h>
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
  void operator()(hs_database_t* db) const { hs_free_database(db); }
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
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

/// A pattern Vectorscan reads as exactly the bytes of `text`.
std::string escape_literal(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 4);
  for (char c : text) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  return out;
}

/// A line of a block holding marker `marker` (or one its regular expression failed on).
struct Found {
  std::size_t begin = 0, end = 0;  ///< the line's bytes in the block, without "\n".
  std::size_t line = 0;            ///< 0-based, counted from the block's start.
  std::uint32_t marker = 0;
};

/// Which engine finds the fixed strings: Vectorscan (search_tree(): its compile, 30-90 us a
/// literal, is paid once for a whole tree) or a LiteralSet (MarkerSearcher: a few microseconds
/// to build for the few files already in memory, and a faster scan of them: 0.25 ns a byte
/// against Vectorscan's 0.5 for the 53 markers of a 7-file patch). Regular expressions keep
/// their Vectorscan prefilter either way: it alone rules out lines that PCRE2 would give up on
/// (match limit), so hits and error lines stay those of search_tree(); PCRE2 on every line
/// instead would cost about 130 us per expression over those 7 files (250 KB), against a
/// prefilter compile of 80 to 1000 us.
enum class LiteralEngine { kVectorscan, kLiteralSet };

/// Fixed strings that MarkerSearcher gives a LiteralSet at most; with more, Vectorscan takes
/// them all (its scan cost does not grow with the literals sharing an anchor).
constexpr std::size_t kMaxLiteralSet = 256;

/// Every marker compiled together (see the file comment).
class Engine {
 public:
  /// What a thread needs to scan: Vectorscan scratch, PCRE2 match data, reused vectors.
  struct Scratch {
    std::unique_ptr<hs_scratch_t, Frees> hs;
    std::vector<std::unique_ptr<pcre2_match_data, Frees>> md;         ///< per marker (regexes only)
    std::vector<std::pair<std::size_t, std::uint32_t>> pairs;         ///< (line begin, marker)
    std::vector<std::tuple<std::size_t, std::uint32_t, int>> failed;  ///< (line begin, marker, rc)
    detail::LiteralSet::Scratch literals;  ///< for the LiteralSet, when there is one
    std::vector<char> maybe;               ///< per marker: the prefilter matched in this block
    std::size_t line_b = 1, line_e = 0;    ///< the line last located by the match callback
    std::string_view block;
    const Engine* engine = nullptr;
  };

  Engine(const std::vector<Marker>& markers, LiteralEngine literals) {
    match_context_.reset(pcre2_match_context_create(nullptr));
    if (!match_context_) throw Error("cannot allocate a PCRE2 match context");
    pcre2_set_match_limit(match_context_.get(), kRegexMatchLimit);
    pcre2_set_depth_limit(match_context_.get(), kRegexDepthLimit);
    pcre2_set_heap_limit(match_context_.get(), kRegexHeapLimitKib);
    for (const Marker& m : markers) {
      length_.push_back(m.text.size());
      if (m.regex) {
        pcre_.push_back(compile_pcre2(m.text));
        kind_.push_back(Kind::kRegex);
        continue;
      }
      pcre_.emplace_back();
      if (m.text.empty())
        kind_.push_back(Kind::kEveryLine);
      else if (m.text.find('\n') != std::string::npos)
        kind_.push_back(Kind::kNever);  // a line never holds a line end
      else
        kind_.push_back(Kind::kLiteral);
    }
    bool literals_in_database = true;
    if (literals == LiteralEngine::kLiteralSet) {
      std::vector<detail::Literal> set;
      for (std::size_t i = 0; i < kind_.size(); ++i)
        if (kind_[i] == Kind::kLiteral)
          set.push_back({markers[i].text, static_cast<std::uint32_t>(i)});
      if (set.size() <= kMaxLiteralSet) {
        if (!set.empty()) literals_ = std::make_unique<detail::LiteralSet>(set);
        literals_in_database = false;
      }
    }
    compile_database(markers, literals_in_database);
  }

  std::size_t size() const { return kind_.size(); }

  std::unique_ptr<Scratch> make_scratch() const {
    auto s = std::make_unique<Scratch>();
    if (db_) {
      hs_scratch_t* hs = nullptr;
      if (hs_alloc_scratch(db_.get(), &hs) != HS_SUCCESS)
        throw Error("cannot allocate Vectorscan scratch space");
      s->hs.reset(hs);
    }
    s->md.resize(kind_.size());
    for (std::size_t i = 0; i < kind_.size(); ++i)
      if (kind_[i] == Kind::kRegex)
        s->md[i].reset(pcre2_match_data_create_from_pattern(pcre_[i].get(), nullptr));
    s->maybe.assign(kind_.size(), 0);
    s->engine = this;
    return s;
  }

  /// Scans `block` (whole lines; the last may lack its "\n"); calls `found(Found)` for each
  /// (line, marker) pair once, in line order, then marker order, and `failed(Found, reason)`
  /// for each line a regular expression could not be evaluated on.
  template <typename OnFound, typename OnFailed>
  void scan(std::string_view block, Scratch& s, OnFound&& found, OnFailed&& failed) const {
    s.pairs.clear();
    s.failed.clear();
    std::fill(s.maybe.begin(), s.maybe.end(), 0);
    if (block.empty()) return;
    if (db_) {
      s.block = block;
      s.line_b = 1;  // empty cache: begin > end
      s.line_e = 0;
      // Blocks are at most max_file_size (32 MiB by default), far below hs_scan's 4 GiB.
      hs_error_t rc = hs_scan(db_.get(), block.data(), static_cast<unsigned int>(block.size()), 0,
                              s.hs.get(), &Engine::on_match, &s);
      if (rc != HS_SUCCESS) throw Error(fmt::format("Vectorscan scan failed (error {})", rc));
    }
    if (literals_) literals_->scan(block, s.literals, s.pairs);
    for (std::size_t i = 0; i < kind_.size(); ++i) {
      const auto id = static_cast<std::uint32_t>(i);
      if (kind_[i] == Kind::kEveryLine) {
        for_each_line(block, [&](std::size_t b, std::size_t) { s.pairs.emplace_back(b, id); });
      } else if (kind_[i] == Kind::kRegex && (!prefiltered_[i] || s.maybe[i] != 0)) {
        // Line by line, like grep: an expression never matches across a line end (`\s`,
        // `[^x]`), and a line PCRE2 gives up on (match limit) costs only that line.
        for_each_line(block, [&](std::size_t b, std::size_t e) {
          std::string_view text = block.substr(b, e - b);
          if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
          int rc = pcre2_match(pcre_[i].get(), reinterpret_cast<PCRE2_SPTR>(text.data()),
                               text.size(), 0, 0, s.md[i].get(), match_context_.get());
          if (rc >= 0)
            s.pairs.emplace_back(b, id);
          else if (rc != PCRE2_ERROR_NOMATCH)
            s.failed.emplace_back(b, id, rc);
        });
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

  /// Calls `each(begin, end)` for every line of `block` ("\n" excluded; no empty last line).
  template <typename Each>
  static void for_each_line(std::string_view block, Each&& each) {
    std::size_t b = 0;
    while (b < block.size()) {
      const void* nl = std::memchr(block.data() + b, '\n', block.size() - b);
      std::size_t e = nl == nullptr
                          ? block.size()
                          : static_cast<std::size_t>(static_cast<const char*>(nl) - block.data());
      each(b, e);
      b = e + 1;
    }
  }

  static int on_match(unsigned int id, unsigned long long /*from*/, unsigned long long to,
                      unsigned int /*flags*/, void* context) {
    auto& s = *static_cast<Scratch*>(context);
    const Engine& e = *s.engine;
    if (e.kind_[id] == Kind::kRegex) {
      s.maybe[id] = 1;  // single-match prefilter: PCRE2 decides line by line
      return 0;
    }
    const auto start = static_cast<std::size_t>(to) - e.length_[id];
    if (start < s.line_b || start >= s.line_e) {
      const char* base = s.block.data();
      const void* prev = start == 0 ? nullptr : ::memrchr(base, '\n', start);
      s.line_b =
          prev == nullptr ? 0 : static_cast<std::size_t>(static_cast<const char*>(prev) - base) + 1;
      const void* next = std::memchr(base + start, '\n', s.block.size() - start);
      s.line_e = next == nullptr ? s.block.size()
                                 : static_cast<std::size_t>(static_cast<const char*>(next) - base);
    }
    if (s.pairs.empty() ||
        s.pairs.back() != std::make_pair(s.line_b, static_cast<std::uint32_t>(id)))
      s.pairs.emplace_back(s.line_b, static_cast<std::uint32_t>(id));
    return 0;
  }

  /// Builds the Vectorscan database of the literals (with `with_literals`) and the regular
  /// expressions it accepts as prefilters; an expression it refuses is left to PCRE2 alone.
  void compile_database(const std::vector<Marker>& markers, bool with_literals) {
    prefiltered_.assign(kind_.size(), false);
    std::vector<std::string> exprs;
    std::vector<unsigned int> flags, ids;
    for (std::size_t i = 0; i < kind_.size(); ++i) {
      if (kind_[i] == Kind::kLiteral && with_literals) {
        exprs.push_back(escape_literal(markers[i].text));
        flags.push_back(0);
        ids.push_back(static_cast<unsigned int>(i));
      } else if (kind_[i] == Kind::kRegex && prefilterable(markers[i].text)) {
        exprs.push_back(markers[i].text);
        flags.push_back(HS_FLAG_PREFILTER | HS_FLAG_SINGLEMATCH | HS_FLAG_MULTILINE |
                        HS_FLAG_ALLOWEMPTY);
        ids.push_back(static_cast<unsigned int>(i));
        prefiltered_[i] = true;
      }
    }
    while (!exprs.empty()) {
      std::vector<const char*> ptrs;
      for (const std::string& x : exprs) ptrs.push_back(x.c_str());
      hs_database_t* db = nullptr;
      hs_compile_error_t* err = nullptr;
      if (hs_compile_multi(ptrs.data(), flags.data(), ids.data(),
                           static_cast<unsigned int>(ptrs.size()), HS_MODE_BLOCK, nullptr, &db,
                           &err) == HS_SUCCESS) {
        db_.reset(db);
        return;
      }
      std::string message = err->message != nullptr ? err->message : "unknown error";
      int at = err->expression;
      hs_free_compile_error(err);
      if (at < 0 || static_cast<std::size_t>(at) >= exprs.size() ||
          kind_[ids[static_cast<std::size_t>(at)]] != Kind::kRegex)
        throw Error("cannot compile the markers for Vectorscan: " + message);
      prefiltered_[ids[static_cast<std::size_t>(at)]] = false;  // PCRE2 runs it on every line
      auto k = static_cast<std::ptrdiff_t>(at);
      exprs.erase(exprs.begin() + k);
      flags.erase(flags.begin() + k);
      ids.erase(ids.begin() + k);
    }
  }

  /// Whether Vectorscan's multi-line reading of `re` over a block finds every line PCRE2 finds
  /// in that line alone (with its "\r" cut): not so for `$` before "\r\n" and for the anchors
  /// of a whole subject (\A, \Z, \z, \G), which PCRE2 applies to each line.
  static bool prefilterable(std::string_view re) {
    if (re.find('$') != std::string_view::npos) return false;
    for (std::string_view a : {"\\A", "\\Z", "\\z", "\\G"})
      if (re.find(a) != std::string_view::npos) return false;
    return true;
  }

  std::vector<Kind> kind_;
  std::vector<std::size_t> length_;
  std::vector<bool> prefiltered_;
  std::vector<std::unique_ptr<pcre2_code, Frees>> pcre_;
  /// The limits of every pcre2_match() (read only while scanning: shared by the threads).
  std::unique_ptr<pcre2_match_context, Frees> match_context_;
  std::unique_ptr<hs_database_t, Frees> db_;
  std::unique_ptr<detail::LiteralSet> literals_;  ///< the fixed strings, unless in db_
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
        engine_(markers, LiteralEngine::kVectorscan),
        sink_(sink) {
    if (options_.gitignore) open_repository();
  }
  ~Walker() = default;
  Walker(const Walker&) = delete;
  Walker& operator=(const Walker&) = delete;

  SearchResult run(const std::vector<Marker>& markers) {
    unsigned threads = options_.threads;
    if (threads == 0) threads = std::thread::hardware_concurrency();
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
      : engine(markers, LiteralEngine::kLiteralSet) {}
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
  Engine engine({marker}, LiteralEngine::kLiteralSet);
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
