// Tree search for markers (see search.hpp): a pool of threads takes directories from a shared
// queue, lists them with readdir(3) (d_type, no stat for most entries), reads each regular file
// with read(2) into a per-thread buffer and runs every marker over it. Fixed strings are found
// by comparing two of the marker's rarest bytes 32 (AVX2) or 16 (SSE2) positions at a time
// (memchr(3) on the rarest byte on other processors) and a memcmp at each candidate; regular
// expressions with PCRE2 (JIT-compiled when the platform supports it). Symlinks are never
// followed. MarkerSearcher runs the same compiled markers over contents already in memory.
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

#include "../git/libgit2.hpp"
#include "sm120check/error.hpp"

namespace sm120check {
namespace {

constexpr std::size_t kBinaryProbe = 8000;  // bytes examined for NUL, as git does

/// How common a byte is in source code, most common first; bytes not listed are rare.
constexpr std::string_view kCommonBytes =
    " etaoinsrlcdhpumf_().,=gybx\"'v:wk/#\n[]TSEAIRNOLC01-2*>+{}<;3456789";

int commonness(unsigned char c) {
  std::size_t at = kCommonBytes.find(static_cast<char>(c));
  return at == std::string_view::npos ? -1 : static_cast<int>(kCommonBytes.size() - at);
}

#if defined(__x86_64__)
/// Start positions in [pos, end) where bytes `c1` at +o1 and `c2` at +o2 both match, 32 at a
/// time (AVX2); calls `check(at)` for each until it returns true. Returns the position reached.
__attribute__((target("avx2"))) std::size_t pair_scan_avx2(const char* base, std::size_t pos,
                                                           std::size_t end, char c1, std::size_t o1,
                                                           char c2, std::size_t o2,
                                                           std::size_t& found,
                                                           const std::string& needle) {
  const __m256i b1 = _mm256_set1_epi8(c1), b2 = _mm256_set1_epi8(c2);
  for (; pos + 32 <= end; pos += 32) {
    __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + pos + o1));
    __m256i x2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + pos + o2));
    auto mask = static_cast<unsigned>(_mm256_movemask_epi8(
        _mm256_and_si256(_mm256_cmpeq_epi8(x1, b1), _mm256_cmpeq_epi8(x2, b2))));
    while (mask != 0) {
      std::size_t at = pos + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::memcmp(base + at, needle.data(), needle.size()) == 0) {
        found = at;
        return pos;
      }
      mask &= mask - 1;
    }
  }
  return pos;
}

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

const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
#else
std::size_t count_newlines(const char* p, std::size_t n) {
  return static_cast<std::size_t>(std::count(p, p + n, '\n'));
}
#endif

/// A compiled marker: a fixed string with its rarest byte, or a PCRE2 pattern.
class CompiledMarker {
 public:
  explicit CompiledMarker(const Marker& m) : text_(m.text), regex_(m.regex) {
    if (!regex_) {
      auto rank = [&](std::size_t i) { return commonness(static_cast<unsigned char>(text_[i])); };
      for (std::size_t i = 0; i < text_.size(); ++i)
        if (rank(i) < rank(rare_)) rare_ = i;
      // A second byte at another offset, as rare as possible, preferably a different value.
      rare2_ = rare_ == 0 ? text_.size() - 1 : 0;
      for (std::size_t i = 0; i < text_.size(); ++i) {
        if (i == rare_) continue;
        bool differs = text_[i] != text_[rare_], best_differs = text_[rare2_] != text_[rare_];
        if ((differs && !best_differs) || (differs == best_differs && rank(i) < rank(rare2_)))
          rare2_ = i;
      }
      return;
    }
    int err = 0;
    PCRE2_SIZE err_offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text_.data()), text_.size(), PCRE2_MULTILINE,
                          &err, &err_offset, nullptr);
    if (code_ == nullptr) {
      std::array<PCRE2_UCHAR, 256> buf{};
      pcre2_get_error_message(err, buf.data(), buf.size());
      throw Error(fmt::format("regular expression '{}' does not compile at offset {}: {}", text_,
                              err_offset, reinterpret_cast<const char*>(buf.data())));
    }
    pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);  // falls back to the interpreter on failure
  }
  CompiledMarker(const CompiledMarker&) = delete;
  CompiledMarker& operator=(const CompiledMarker&) = delete;
  ~CompiledMarker() {
    if (code_ != nullptr) pcre2_code_free(code_);
  }

  bool regex() const { return regex_; }
  const std::string& text() const { return text_; }
  pcre2_code* code() const { return code_; }

  /// Offset of the first match at or after `from` in `hay`, or npos. `md` is the calling
  /// thread's match data (regular expressions only).
  std::size_t find(std::string_view hay, std::size_t from, pcre2_match_data* md) const {
    if (regex_) {
      int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(hay.data()), hay.size(), from, 0, md,
                           nullptr);
      if (rc < 0) return std::string_view::npos;
      return pcre2_get_ovector_pointer(md)[0];
    }
    const std::size_t n = text_.size();
    if (n == 0) return from <= hay.size() ? from : std::string_view::npos;
    if (hay.size() < n || from > hay.size() - n) return std::string_view::npos;
    const char* base = hay.data();
#if defined(__x86_64__)
    if (n >= 2) {
      // Two rare bytes of the needle compared 32 (AVX2) or 16 (SSE2) candidate positions at a
      // time (the "generic SIMD" substring search); memcmp confirms each candidate.
      std::size_t pos = from;
      const std::size_t end = hay.size() - n + 1;  // one past the last start position
      if (kHaveAvx2) {
        std::size_t found = std::string_view::npos;
        pos = pair_scan_avx2(base, pos, end, text_[rare_], rare_, text_[rare2_], rare2_, found,
                             text_);
        if (found != std::string_view::npos) return found;
      }
      const __m128i b1 = _mm_set1_epi8(text_[rare_]), b2 = _mm_set1_epi8(text_[rare2_]);
      for (; pos + 16 <= end; pos += 16) {
        __m128i c1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + pos + rare_));
        __m128i c2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + pos + rare2_));
        auto mask = static_cast<unsigned>(
            _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(c1, b1), _mm_cmpeq_epi8(c2, b2))));
        while (mask != 0) {
          std::size_t at = pos + static_cast<std::size_t>(__builtin_ctz(mask));
          if (std::memcmp(base + at, text_.data(), n) == 0) return at;
          mask &= mask - 1;
        }
      }
      for (; pos < end; ++pos)
        if (base[pos + rare_] == text_[rare_] && std::memcmp(base + pos, text_.data(), n) == 0)
          return pos;
      return std::string_view::npos;
    }
#endif
    const char* p = base + from + rare_;
    const char* last = base + hay.size() - (n - rare_ - 1);  // one past the last candidate
    const char rare = text_[rare_];
    while (p < last) {
      const void* q = std::memchr(p, rare, static_cast<std::size_t>(last - p));
      if (q == nullptr) return std::string_view::npos;
      const char* hit = static_cast<const char*>(q);
      const char* start = hit - rare_;
      if (std::memcmp(start, text_.data(), n) == 0) return static_cast<std::size_t>(start - base);
      p = hit + 1;
    }
    return std::string_view::npos;
  }

 private:
  std::string text_;
  bool regex_ = false;
  std::size_t rare_ = 0, rare2_ = 0;
  pcre2_code* code_ = nullptr;
};

/// Runs one compiled marker over `content`; calls `emit(line, text)` once per matching line.
template <typename Emit>
void scan(const CompiledMarker& c, std::string_view content, pcre2_match_data* md, Emit&& emit) {
  if (c.regex()) {
    // Line by line, like grep: an expression never matches across a line end (`\s`, `[^x]`),
    // and a line PCRE2 gives up on (match limit) costs only that line.
    std::size_t begin = 0, line = 1;
    while (begin < content.size()) {
      std::size_t end = content.find('\n', begin);
      if (end == std::string_view::npos) end = content.size();
      std::string_view text = content.substr(begin, end - begin);
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      int rc = pcre2_match(c.code(), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0,
                           md, nullptr);
      if (rc >= 0) emit(line, text.substr(0, kMaxHitText));
      begin = end + 1;
      ++line;
    }
    return;
  }
  if (c.text().find('\n') != std::string::npos) return;  // a line never holds a line end
  std::size_t pos = 0, counted = 0, line = 1;
  while (pos <= content.size()) {
    std::size_t at = c.find(content, pos, md);
    if (at == std::string_view::npos || at >= content.size()) break;
    line += count_newlines(content.data() + counted, at - counted);
    std::size_t begin = at;
    while (begin > 0 && content[begin - 1] != '\n') --begin;
    std::size_t end = content.find('\n', at);
    if (end == std::string_view::npos) end = content.size();
    std::string_view text = content.substr(begin, end - begin);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    emit(line, text.substr(0, kMaxHitText));
    if (end == content.size()) break;
    pos = end + 1;
    counted = pos;
    ++line;
  }
}

struct Frees {
  void operator()(pcre2_match_data* md) const { pcre2_match_data_free(md); }
  void operator()(git_repository* r) const { git::libgit2().git_repository_free(r); }
};

/// What one worker found; merged at the end.
struct Partial {
  std::vector<std::vector<SearchHit>> hits;
  std::vector<std::string> files;
  SearchResult counts;
};

class Walker {
 public:
  Walker(std::string root, const std::vector<Marker>& markers, const SearchOptions& options)
      : root_(std::move(root)), options_(options) {
    for (const Marker& m : markers) compiled_.push_back(std::make_unique<CompiledMarker>(m));
    if (options_.gitignore) open_repository();
  }
  ~Walker() = default;
  Walker(const Walker&) = delete;
  Walker& operator=(const Walker&) = delete;

  SearchResult run(const std::vector<Marker>& markers) {
    unsigned threads = options_.threads;
    if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    std::vector<Partial> partials(threads);
    queue_.push_back(std::string());
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back([this, &partials, t] { work(partials[t]); });
    work(partials[0]);
    for (std::thread& th : pool) th.join();
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
    part.hits.resize(compiled_.size());
    std::vector<std::unique_ptr<pcre2_match_data, Frees>> mds;
    for (const auto& c : compiled_)
      mds.emplace_back(c->regex() ? pcre2_match_data_create_from_pattern(c->code(), nullptr)
                                  : nullptr);
    std::unique_ptr<git_repository, Frees> repo;
    if (!repo_path_.empty()) {
      git_repository* r = nullptr;
      if (git::libgit2().git_repository_open(&r, repo_path_.c_str()) == 0) repo.reset(r);
    }
    std::string buffer;
    for (;;) {
      std::string dir;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return !queue_.empty() || active_ == 0; });
        if (queue_.empty()) return;  // nothing queued and nobody can queue more
        dir = std::move(queue_.front());
        queue_.pop_front();
        ++active_;
      }
      list_directory(dir, part, mds, repo.get(), buffer);
      {
        std::lock_guard lock(mutex_);
        --active_;
      }
      cv_.notify_all();
    }
  }

  void list_directory(const std::string& rel, Partial& part,
                      const std::vector<std::unique_ptr<pcre2_match_data, Frees>>& mds,
                      git_repository* repo, std::string& buffer) {
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
        search_file(fd, e->d_name, std::move(child), part, mds, buffer);
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

  void search_file(int dir_fd, const char* name, std::string rel, Partial& part,
                   const std::vector<std::unique_ptr<pcre2_match_data, Frees>>& mds,
                   std::string& buffer) {
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
      part.counts.skipped_large.push_back(std::move(rel));
      return;
    }
    if (options_.collect_files) part.files.push_back(rel);
    if (compiled_.empty()) {
      ::close(fd);
      return;
    }
    if (buffer.size() < size + 1) buffer.resize(static_cast<std::size_t>(size) + 1);
    std::size_t got = 0;
    bool probed = false;  // the first kBinaryProbe bytes were examined for NUL
    for (;;) {
      if (got == buffer.size()) buffer.resize(buffer.size() * 2);
      // The first read(2) stops at 16 KiB so that a binary file is not read any further.
      std::size_t chunk = buffer.size() - got;
      if (!probed) chunk = std::min<std::size_t>(chunk, 16384);
      ssize_t n = ::read(fd, buffer.data() + got, chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        part.counts.skipped_unreadable.push_back(fmt::format("{}: {}", rel, std::strerror(errno)));
        ::close(fd);
        return;
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
      if (!probed && (got >= kBinaryProbe || got == size)) {
        probed = true;
        if (std::memchr(buffer.data(), 0, std::min(got, kBinaryProbe)) != nullptr) break;
      }
      if (got == size) break;  // all fstat(2) promised: spare the read(2) that returns 0
      if (got > options_.max_file_size) break;  // grew while reading: searched as far as the limit
    }
    ::close(fd);
    std::string_view content(buffer.data(), std::min<std::size_t>(got, options_.max_file_size));
    if (std::memchr(content.data(), 0, std::min(content.size(), kBinaryProbe)) != nullptr) {
      ++part.counts.skipped_binary;
      return;
    }
    ++part.counts.files_searched;
    part.counts.bytes_searched += content.size();
    for (std::size_t i = 0; i < compiled_.size(); ++i)
      scan(*compiled_[i], content, mds[i].get(), [&](std::size_t line, std::string_view text) {
        part.hits[i].push_back({rel, line, std::string(text)});
      });
  }

  SearchResult merge(const std::vector<Marker>& markers, std::vector<Partial>& partials) const {
    SearchResult r;
    for (std::size_t i = 0; i < markers.size(); ++i) {
      MarkerHits mh{markers[i], {}, 0};
      for (Partial& p : partials)
        if (i < p.hits.size())
          std::move(p.hits[i].begin(), p.hits[i].end(), std::back_inserter(mh.hits));
      std::sort(mh.hits.begin(), mh.hits.end(), [](const SearchHit& a, const SearchHit& b) {
        return a.path != b.path ? a.path < b.path : a.line < b.line;
      });
      mh.total = mh.hits.size();
      if (options_.max_hits_per_marker != 0 && mh.hits.size() > options_.max_hits_per_marker)
        mh.hits.resize(options_.max_hits_per_marker);
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
  std::vector<std::unique_ptr<CompiledMarker>> compiled_;
  std::string repo_path_, git_prefix_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::size_t active_ = 0;
};

}  // namespace

SearchResult search_tree(const std::string& root, const std::vector<Marker>& markers,
                         const SearchOptions& options) {
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
  Walker walker(std::move(base), markers, options);
  return walker.run(markers);
}

struct MarkerSearcher::Compiled : CompiledMarker {
  using CompiledMarker::CompiledMarker;
};

MarkerSearcher::MarkerSearcher(std::vector<Marker> markers) : markers_(std::move(markers)) {
  for (const Marker& m : markers_) compiled_.push_back(std::make_unique<Compiled>(m));
}
MarkerSearcher::~MarkerSearcher() = default;
MarkerSearcher::MarkerSearcher(MarkerSearcher&&) noexcept = default;
MarkerSearcher& MarkerSearcher::operator=(MarkerSearcher&&) noexcept = default;

std::vector<MarkerHits> MarkerSearcher::search(std::string_view path, std::string_view content,
                                               std::size_t max_hits_per_marker) const {
  std::vector<MarkerHits> out;
  out.reserve(markers_.size());
  for (const Marker& m : markers_) out.push_back({m, {}, 0});
  // As search_tree() does for a file: binary content is skipped, not searched.
  if (std::memchr(content.data(), 0, std::min(content.size(), kBinaryProbe)) != nullptr) return out;
  const std::string where(path);
  for (std::size_t i = 0; i < compiled_.size(); ++i) {
    const CompiledMarker& c = *compiled_[i];
    std::unique_ptr<pcre2_match_data, Frees> md(
        c.regex() ? pcre2_match_data_create_from_pattern(c.code(), nullptr) : nullptr);
    MarkerHits& mh = out[i];
    scan(c, content, md.get(), [&](std::size_t line, std::string_view text) {
      ++mh.total;
      if (max_hits_per_marker == 0 || mh.hits.size() < max_hits_per_marker)
        mh.hits.push_back({where, line, std::string(text)});
    });
  }
  return out;
}

void MarkerSearcher::add(std::vector<MarkerHits>& into, std::string_view path,
                         std::string_view content, std::size_t max_hits_per_marker) const {
  std::vector<MarkerHits> found = search(path, content, max_hits_per_marker);
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
  }
}

std::vector<MarkerHits> search_content(const std::vector<Marker>& markers, std::string_view path,
                                       std::string_view content, std::size_t max_hits_per_marker) {
  return MarkerSearcher(markers).search(path, content, max_hits_per_marker);
}

std::vector<SearchHit> search_text(std::string_view content, const Marker& marker,
                                   const std::string& path) {
  CompiledMarker c(marker);
  std::unique_ptr<pcre2_match_data, Frees> md(
      c.regex() ? pcre2_match_data_create_from_pattern(c.code(), nullptr) : nullptr);
  std::vector<SearchHit> hits;
  scan(c, content, md.get(), [&](std::size_t line, std::string_view text) {
    hits.push_back({path, line, std::string(text)});
  });
  return hits;
}

}  // namespace sm120check
