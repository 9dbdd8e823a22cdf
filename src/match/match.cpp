// The hunk matcher (see match.hpp for the contract and the tie rule).
//
// Lines are compared through hashes. Per comparison mode (exact, "\r" stripped, white space
// folded), each file line gets a seeded 64-bit hash reduced modulo the Mersenne prime 2^61 - 1;
// the file's last line, when it has no final newline, gets a distinct ("flagged") value, so the
// end-of-file newline rule is part of the strict comparison. Polynomial prefix hashes over those
// values give the hash of any window of lines in O(1); an image's window hash is computed the
// same way. A candidate position is checked by comparing window hashes, then verified line by
// line only on equality, so results never depend on the hashes.
//
// A hunk is first tried at its expected line. When it is not there, the candidates are the
// occurrences of the image's rarest line (a (value, line) index of the file), visited in order
// of distance; once the candidates scanned for one (mode, window length) exceed a few times the
// file's length, a sorted index of all the file's windows of that length is built, and the
// positions where the image's hash occurs are found by binary search.
//
// All of that per-file data lives in the FileText (detail::MatchCache), built lazily per mode
// (the exact mode always; the others only for diagnostics or ignore_whitespace, and shared with
// the exact mode when normalising changes no line of the file) and reused by later calls.
#include "sm120check/match.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sm120check {

namespace {

// --- Hashing -----------------------------------------------------------------------------------

using u64 = std::uint64_t;
__extension__ typedef unsigned __int128 U128;

constexpr u64 kMod = (u64{1} << 61) - 1;

u64 mod_reduce(u64 x) {
  x = (x & kMod) + (x >> 61);
  return x >= kMod ? x - kMod : x;
}
u64 mod_mul(u64 a, u64 b) {
  const U128 p = static_cast<U128>(a) * b;
  return mod_reduce((static_cast<u64>(p) & kMod) + static_cast<u64>(p >> 61));
}
u64 mod_add(u64 a, u64 b) {
  const u64 r = a + b;
  return r >= kMod ? r - kMod : r;
}
u64 mod_sub(u64 a, u64 b) { return a >= b ? a - b : a + kMod - b; }

u64 mix(u64 x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// Per-process random keys, so that crafted input cannot aim at hash collisions (which would
/// only cost time: every hash match is verified).
struct HashKeys {
  u64 seed = 0;
  u64 base = 0;  ///< polynomial base, in [2^32, kMod)
  u64 flag = 0;  ///< salt of a last line without final newline
};

const HashKeys& keys() {
  static const HashKeys k = [] {
    u64 s = static_cast<u64>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
      std::random_device rd;
      s ^= (static_cast<u64>(rd()) << 32) ^ rd();
    } catch (...) {  // no entropy source: the clock alone will do
    }
    HashKeys out;
    out.seed = mix(s);
    out.base = mix(out.seed) % (kMod - (u64{1} << 32)) + (u64{1} << 32);
    out.flag = mix(out.base);
    return out;
  }();
  return k;
}

u64 hash_text(std::string_view s) {
  u64 h = keys().seed ^ mix(s.size());
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    u64 w = 0;
    std::memcpy(&w, s.data() + i, 8);
    h = mix(h ^ w);
  }
  u64 w = 0;
  if (i < s.size()) std::memcpy(&w, s.data() + i, s.size() - i);
  return mix(h ^ w ^ 0x5bd1e995ULL);
}

/// A line's value in the polynomial hash: plain, or flagged (last line without final newline).
u64 line_value(u64 h, bool flagged) { return mod_reduce(flagged ? mix(h ^ keys().flag) : h); }

// --- Normalisation -----------------------------------------------------------------------------

/// How line text is compared.
enum class TextMode : std::size_t {
  kExact = 0,    ///< byte for byte
  kStripCr = 1,  ///< "\r" at the end of a line ignored
  kFoldWs = 2,   ///< runs of white space folded to one space, trailing white space ignored
};
constexpr std::size_t kTextModeCount = 3;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// True when folding would change `s`.
bool needs_fold(std::string_view s) {
  if (!s.empty() && is_space(s.back())) return true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') {
      if (i + 1 < s.size() && is_space(s[i + 1])) return true;
    } else if (is_space(c)) {
      return true;
    }
  }
  return false;
}

/// True when normalising for `mode` would change `s`.
bool changes(std::string_view s, TextMode mode) {
  switch (mode) {
    case TextMode::kExact:
      return false;
    case TextMode::kStripCr:
      return !s.empty() && s.back() == '\r';
    case TextMode::kFoldWs:
      return needs_fold(s);
  }
  return false;
}

/// `s` normalised for `mode`. When the result differs from `s`, it is appended to `storage`,
/// which the caller has reserved so that it never reallocates (a result is never longer than
/// its input).
std::string_view normalise(std::string_view s, TextMode mode, std::string& storage) {
  switch (mode) {
    case TextMode::kExact:
      return s;
    case TextMode::kStripCr:
      while (!s.empty() && s.back() == '\r') s.remove_suffix(1);
      return s;
    case TextMode::kFoldWs: {
      if (!needs_fold(s)) return s;
      const std::size_t begin = storage.size();
      bool in_space = false;
      for (const char c : s) {
        if (is_space(c)) {
          in_space = true;
        } else {
          if (in_space) storage += ' ';
          in_space = false;
          storage += c;
        }
      }
      return std::string_view(storage).substr(begin);
    }
  }
  return s;
}

/// True when `raw` folded (as normalise(kFoldWs)) equals `folded`, without building the fold.
bool fold_equals(std::string_view raw, std::string_view folded) {
  std::size_t j = 0;
  bool in_space = false;
  for (const char c : raw) {
    if (is_space(c)) {
      in_space = true;
      continue;
    }
    if (in_space) {
      if (j >= folded.size() || folded[j] != ' ') return false;
      ++j;
    }
    in_space = false;
    if (j >= folded.size() || folded[j] != c) return false;
    ++j;
  }
  return j == folded.size();
}

/// True when the file line `raw` equals the image line `norm` (already normalised for `mode`).
bool line_equals(std::string_view raw, std::string_view norm, TextMode mode) {
  switch (mode) {
    case TextMode::kExact:
      return raw == norm;
    case TextMode::kStripCr:
      while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      return raw == norm;
    case TextMode::kFoldWs:
      return fold_equals(raw, norm);
  }
  return false;
}

}  // namespace

// --- Per-file cache ----------------------------------------------------------------------------

namespace detail {

/// Positions of all windows of one length, sorted by (window hash, position); or, before it is
/// built, how many anchor candidates were scanned for that length (built once that is large).
struct WindowIndex {
  std::vector<std::size_t> positions;
  bool built = false;
  std::uint64_t scanned = 0;
  std::uint64_t last_use = 0;
};

/// One comparison mode's data about the file.
struct ModeData {
  bool built = false;
  /// prefix[i]: polynomial hash of the values of lines [0, i) (the last line flagged when the
  /// file has no final newline).
  std::vector<std::uint64_t> prefix;
  std::uint64_t last_plain = 0;  ///< the last line's unflagged value
  /// Line numbers sorted by (line value, line); built on first need.
  std::vector<std::size_t> by_value;
  bool by_value_built = false;
  std::unordered_map<std::size_t, WindowIndex> windows;  ///< by window length
};

struct MatchCache {
  std::vector<std::uint64_t> pow;  ///< base^i mod kMod, i = 0..size()
  std::array<ModeData, kTextModeCount> modes;
  /// The mode whose data a mode uses (a mode that changes no line shares the exact mode's).
  std::array<std::size_t, kTextModeCount> rep{};
  std::array<bool, kTextModeCount> rep_known{};
  std::uint64_t clock = 0;
  std::size_t built_windows = 0;
};

MatchCache& match_cache(const FileText& file) {
  if (!file.cache_) file.cache_ = std::make_unique<MatchCache>();
  return *file.cache_;
}

}  // namespace detail

// --- FileText ----------------------------------------------------------------------------------

FileText::FileText(std::string content) : content_(std::move(content)) {
  const std::string_view all(content_);
  lines_.reserve(static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n')) + 1);
  std::size_t start = 0;
  while (start < all.size()) {
    const std::size_t nl = all.find('\n', start);
    if (nl == std::string_view::npos) {
      lines_.push_back(all.substr(start));
      final_newline_ = false;
      break;
    }
    lines_.push_back(all.substr(start, nl - start));
    start = nl + 1;
  }
}

// The line views point into content_; a moved std::string may change its buffer (short-string
// optimisation), so the views are rebased onto the new buffer. The cache holds no views.
FileText::FileText(FileText&& other) noexcept { *this = std::move(other); }

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this == &other) return *this;
  const char* old_data = other.content_.data();
  content_ = std::move(other.content_);
  lines_ = std::move(other.lines_);
  final_newline_ = other.final_newline_;
  cache_ = std::move(other.cache_);
  if (content_.data() != old_data) {
    for (std::string_view& line : lines_) {
      line = std::string_view(content_.data() + (line.data() - old_data), line.size());
    }
  }
  other.content_.clear();
  other.lines_.clear();
  other.final_newline_ = true;
  return *this;
}

FileText::~FileText() = default;

std::string_view to_string(HunkStatus status) {
  switch (status) {
    case HunkStatus::kApplied:
      return "applied";
    case HunkStatus::kApplicable:
      return "applicable";
    case HunkStatus::kConflict:
      return "conflict";
  }
  return "conflict";
}

std::string whole_image(const std::vector<Hunk>& hunks, Image image) {
  const LineKind skip = image == Image::kPre ? LineKind::kAdded : LineKind::kRemoved;
  std::string out;
  for (const Hunk& hunk : hunks) {
    for (const HunkLine& line : hunk.lines) {
      if (line.kind == skip) continue;
      out += line.text;
      if (!line.no_newline_at_eof) out += '\n';
    }
  }
  return out;
}

namespace {

using detail::MatchCache;
using detail::ModeData;
using detail::WindowIndex;

/// Window indexes kept per file at most (each one 8 bytes per file line); the least recently
/// used one is dropped beyond that.
constexpr std::size_t kMaxWindowIndexes = 4;

// --- File side ---------------------------------------------------------------------------------

/// A run of ascending line numbers or positions inside one of the cache's indexes.
using Range = std::pair<const std::size_t*, const std::size_t*>;

/// Read access to one mode's data of a file, building what is missing.
class FileSide {
 public:
  FileSide(const FileText& file, MatchCache& cache, TextMode mode)
      : file_(file),
        cache_(cache),
        n_(file.size()),
        last_no_newline_(file.size() > 0 && !file.final_newline()) {
    const auto m = static_cast<std::size_t>(mode);
    if (!cache.rep_known[m]) {
      std::size_t rep = m;
      if (mode != TextMode::kExact) {
        rep = 0;
        for (std::size_t i = 0; i < n_ && rep == 0; ++i) {
          if (changes(file.line(i), mode)) rep = m;
        }
      }
      cache.rep[m] = rep;
      cache.rep_known[m] = true;
    }
    rep_ = cache.rep[m];
    data_ = &cache.modes[rep_];
    if (!data_->built) build(static_cast<TextMode>(rep_));
  }

  std::size_t rep() const { return rep_; }

  /// Hash of lines [pos, pos + len), the last line flagged when the file has no final newline.
  u64 window(std::size_t pos, std::size_t len) const {
    return mod_sub(data_->prefix[pos + len], mod_mul(data_->prefix[pos], cache_.pow[len]));
  }

  /// Hash of lines [pos, pos + len) with no line flagged (len >= 1).
  u64 window_plain(std::size_t pos, std::size_t len) const {
    if (!last_no_newline_ || pos + len != n_) return window(pos, len);
    const u64 head =
        mod_sub(data_->prefix[n_ - 1], mod_mul(data_->prefix[pos], cache_.pow[len - 1]));
    return mod_add(mod_mul(head, keys().base), data_->last_plain);
  }

  /// The lines whose value is `v`, ascending.
  Range occurrences(u64 v) {
    if (!data_->by_value_built) {
      std::vector<std::pair<u64, std::size_t>> tmp(n_);
      for (std::size_t i = 0; i < n_; ++i) tmp[i] = {window(i, 1), i};
      std::sort(tmp.begin(), tmp.end());
      data_->by_value.resize(n_);
      for (std::size_t i = 0; i < n_; ++i) data_->by_value[i] = tmp[i].second;
      data_->by_value_built = true;
    }
    const std::vector<std::size_t>& idx = data_->by_value;
    const auto lo = std::lower_bound(idx.begin(), idx.end(), v,
                                     [&](std::size_t i, u64 x) { return window(i, 1) < x; });
    const auto hi =
        std::upper_bound(lo, idx.end(), v, [&](u64 x, std::size_t i) { return x < window(i, 1); });
    return {idx.data() + (lo - idx.begin()), idx.data() + (hi - idx.begin())};
  }

  WindowIndex& window_index(std::size_t len) {
    WindowIndex& wi = data_->windows[len];
    wi.last_use = ++cache_.clock;
    return wi;
  }

  /// Builds `wi`, the index of the windows of length `len` (1 <= len <= size()).
  void build_window_index(WindowIndex& wi, std::size_t len) {
    if (cache_.built_windows >= kMaxWindowIndexes) evict_one();
    const std::size_t count = n_ - len + 1;
    std::vector<std::pair<u64, std::size_t>> tmp(count);
    for (std::size_t p = 0; p < count; ++p) tmp[p] = {window(p, len), p};
    std::sort(tmp.begin(), tmp.end());
    wi.positions.resize(count);
    for (std::size_t p = 0; p < count; ++p) wi.positions[p] = tmp[p].second;
    wi.built = true;
    ++cache_.built_windows;
  }

  /// The positions (ascending) whose window of length `len` hashes to `h`; `wi` built.
  Range windows_with(const WindowIndex& wi, std::size_t len, u64 h) const {
    const std::vector<std::size_t>& idx = wi.positions;
    const auto lo = std::lower_bound(idx.begin(), idx.end(), h,
                                     [&](std::size_t p, u64 x) { return window(p, len) < x; });
    const auto hi = std::upper_bound(lo, idx.end(), h,
                                     [&](u64 x, std::size_t p) { return x < window(p, len); });
    return {idx.data() + (lo - idx.begin()), idx.data() + (hi - idx.begin())};
  }

 private:
  void build(TextMode mode) {
    std::vector<u64>& pow = cache_.pow;
    if (pow.size() < n_ + 1) {
      pow.resize(n_ + 1);
      pow[0] = 1;
      for (std::size_t i = 1; i <= n_; ++i) pow[i] = mod_mul(pow[i - 1], keys().base);
    }
    std::vector<u64>& prefix = data_->prefix;
    prefix.resize(n_ + 1);
    prefix[0] = 0;
    std::string buf;
    for (std::size_t i = 0; i < n_; ++i) {
      buf.clear();
      const u64 h = hash_text(normalise(file_.line(i), mode, buf));
      const bool last = i + 1 == n_;
      if (last) data_->last_plain = line_value(h, false);
      prefix[i + 1] =
          mod_add(mod_mul(prefix[i], keys().base), line_value(h, last && last_no_newline_));
    }
    data_->built = true;
  }

  void evict_one() {
    WindowIndex* oldest = nullptr;
    for (ModeData& d : cache_.modes) {
      for (auto& [len, wi] : d.windows) {
        if (wi.built && (oldest == nullptr || wi.last_use < oldest->last_use)) oldest = &wi;
      }
    }
    if (oldest == nullptr) return;
    oldest->positions.clear();
    oldest->positions.shrink_to_fit();
    oldest->built = false;
    oldest->scanned = 0;
    --cache_.built_windows;
  }

  const FileText& file_;
  MatchCache& cache_;
  const std::size_t n_;
  const bool last_no_newline_;
  std::size_t rep_ = 0;
  ModeData* data_ = nullptr;
};

// --- Hunk side ---------------------------------------------------------------------------------

/// One image of a hunk, normalised and hashed for one TextMode. Buffers are reused across hunks.
class ImageText {
 public:
  void build(const std::vector<const HunkLine*>& lines, TextMode mode) {
    std::size_t total = 0;
    for (const HunkLine* line : lines) total += line->text.size();
    storage_.clear();
    storage_.reserve(mode == TextMode::kFoldWs ? total : 0);
    const std::size_t m = lines.size();
    text_.resize(m);
    no_newline_.resize(m);
    prefix_strict_.resize(m + 1);
    prefix_plain_.resize(m + 1);
    prefix_strict_[0] = prefix_plain_[0] = 0;
    for (std::vector<Range>& occ : occurrences_) occ.clear();
    const u64 base = keys().base;
    for (std::size_t j = 0; j < m; ++j) {
      text_[j] = normalise(lines[j]->text, mode, storage_);
      no_newline_[j] = lines[j]->no_newline_at_eof;
      const u64 h = hash_text(text_[j]);
      prefix_strict_[j + 1] =
          mod_add(mod_mul(prefix_strict_[j], base), line_value(h, no_newline_[j] != 0));
      prefix_plain_[j + 1] = mod_add(mod_mul(prefix_plain_[j], base), line_value(h, false));
    }
  }

  std::size_t size() const { return text_.size(); }
  std::string_view text(std::size_t j) const { return text_[j]; }
  bool no_newline(std::size_t j) const { return no_newline_[j] != 0; }

  /// Per image line, its occurrences in the file (strict or plain values); empty until the
  /// caller fills it, cleared by build().
  std::vector<Range>& occurrences(bool strict) { return occurrences_[strict ? 1 : 0]; }

  /// Hash of image lines [first, first + len); `pow` must reach len.
  u64 window(std::size_t first, std::size_t len, bool strict, const std::vector<u64>& pow) const {
    const std::vector<u64>& prefix = strict ? prefix_strict_ : prefix_plain_;
    return mod_sub(prefix[first + len], mod_mul(prefix[first], pow[len]));
  }

 private:
  std::string storage_;
  std::vector<std::string_view> text_;
  std::vector<unsigned char> no_newline_;
  std::vector<u64> prefix_strict_, prefix_plain_;
  std::array<std::vector<Range>, 2> occurrences_;
};

/// A hunk split into its two images, plus where its edge context lies.
struct HunkImages {
  std::vector<const HunkLine*> pre;
  std::vector<const HunkLine*> post;
  std::size_t leading = 0;   ///< context lines before the first added/removed line
  std::size_t trailing = 0;  ///< context lines after the last added/removed line
  bool any_no_newline = false;

  void build(const Hunk& hunk) {
    pre.clear();
    post.clear();
    any_no_newline = false;
    for (const HunkLine& line : hunk.lines) {
      if (line.kind != LineKind::kAdded) pre.push_back(&line);
      if (line.kind != LineKind::kRemoved) post.push_back(&line);
      any_no_newline = any_no_newline || line.no_newline_at_eof;
    }
    leading = hunk.leading_context();
    trailing = hunk.trailing_context();
  }
};

/// What one image's search asks for: compare image lines [first, first + count) with the file,
/// starting no earlier than `lo`, nearest to `expected` (0-based line of image line `first`).
struct Probe {
  std::size_t first = 0;
  std::size_t count = 0;
  std::int64_t expected = 0;
  std::size_t lo = 0;
  bool strict_eof = true;  ///< honour the end-of-file newline flags
};

/// One image's match: 0-based start line and number of lines compared.
struct Found {
  std::size_t pos = 0;
  std::size_t count = 0;
};

std::size_t clamp_line(std::int64_t v, std::size_t lo, std::size_t hi) {
  if (v < 0) return lo;
  return std::clamp(static_cast<std::size_t>(v), lo, hi);
}

/// The nearer of two candidate starts to `expected`; at equal distance the later one.
std::optional<std::size_t> nearer(std::optional<std::size_t> a, std::optional<std::size_t> b,
                                  std::int64_t expected) {
  if (!a) return b;
  if (!b) return a;
  const std::int64_t da = std::abs(static_cast<std::int64_t>(*a) - expected);
  const std::int64_t db = std::abs(static_cast<std::int64_t>(*b) - expected);
  if (da != db) return da < db ? a : b;
  return std::max(*a, *b);
}

/// Visits the candidate starts start_of(e) for e in [first, last) (ascending) that lie in
/// [lo, hi], in order of distance from `expected` (the later one first at equal distance), and
/// returns the first for which `check` holds. `visited` counts the candidates checked.
template <class StartOf, class Check>
std::optional<std::size_t> nearest(const std::size_t* first, const std::size_t* last,
                                   StartOf start_of, std::int64_t expected, std::int64_t lo,
                                   std::int64_t hi, Check check, std::uint64_t& visited) {
  auto first_at_or_after = [&](std::int64_t start) {
    return std::lower_bound(first, last, start,
                            [&](const std::size_t& e, std::int64_t s) { return start_of(e) < s; });
  };
  // Right candidates: starts >= max(expected, lo); left ones: starts < min(expected, hi + 1).
  const std::size_t* right = first_at_or_after(std::max(expected, lo));
  const std::size_t* left = first_at_or_after(std::min(expected, hi + 1));
  for (;;) {
    const bool has_right = right != last && start_of(*right) <= hi;
    const bool has_left = left != first && start_of(*(left - 1)) >= lo;
    if (!has_right && !has_left) return std::nullopt;
    std::int64_t start = 0;
    if (has_right &&
        (!has_left || start_of(*right) - expected <= expected - start_of(*(left - 1)))) {
      start = start_of(*right++);
    } else {
      start = start_of(*--left);
    }
    ++visited;
    if (check(static_cast<std::size_t>(start))) return static_cast<std::size_t>(start);
  }
}

// --- The per-file matcher ----------------------------------------------------------------------

class Matcher {
 public:
  Matcher(const FileText& file, const MatchOptions& options)
      : file_(file),
        cache_(detail::match_cache(file)),
        options_(options),
        n_(file.size()),
        last_no_newline_(file.size() > 0 && !file.final_newline()),
        base_mode_(options.ignore_whitespace ? TextMode::kFoldWs : TextMode::kExact) {}

  std::vector<HunkMatch> run(const std::vector<Hunk>& hunks) {
    std::vector<HunkMatch> out;
    out.reserve(hunks.size());
    std::size_t lo = 0;       // first line the next hunk may use
    std::int64_t offset = 0;  // offset of the last matched hunk
    for (const Hunk& hunk : hunks) {
      images_.build(hunk);
      HunkMatch m = match_one(hunk, lo, offset);
      if (m.status != HunkStatus::kConflict) {
        offset = m.offset;
        lo = match_end_;
      }
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  /// 0-based line where image line 0 is expected before any offset; for an empty image, the line
  /// before which it sits ("@@ -5,0" inserts after line 5, i.e. before 0-based line 5).
  static std::int64_t header_base(std::uint32_t start, bool empty) {
    if (empty) return static_cast<std::int64_t>(start);
    return start == 0 ? 0 : static_cast<std::int64_t>(start) - 1;
  }

  /// Line by line comparison of the probed image lines with the file at `pos`.
  bool verify(TextMode mode, const ImageText& img, const Probe& p, std::size_t pos) const {
    for (std::size_t k = 0; k < p.count; ++k) {
      const std::size_t i = pos + k;
      const std::size_t j = p.first + k;
      if (!line_equals(file_.line(i), img.text(j), mode)) return false;
      if (p.strict_eof && (last_no_newline_ && i + 1 == n_) != img.no_newline(j)) return false;
    }
    return true;
  }

  /// Nearest start in [p.lo, n - p.count] where the image matches; ties go to the later line.
  std::optional<std::size_t> find(TextMode mode, ImageText& img, const Probe& p) {
    if (p.count == 0) return clamp_line(p.expected, std::min(p.lo, n_), n_);
    if (p.count > n_ || p.lo > n_ - p.count) return std::nullopt;
    FileSide fs(file_, cache_, mode);
    const std::size_t hi = n_ - p.count;
    const auto lo64 = static_cast<std::int64_t>(p.lo);
    const auto hi64 = static_cast<std::int64_t>(hi);
    const bool strict = p.strict_eof;
    const u64 target = img.window(p.first, p.count, strict, cache_.pow);
    auto check = [&](std::size_t pos) {
      const u64 h = strict ? fs.window(pos, p.count) : fs.window_plain(pos, p.count);
      return h == target && verify(mode, img, p, pos);
    };
    if (p.expected >= lo64 && p.expected <= hi64 && check(static_cast<std::size_t>(p.expected))) {
      return static_cast<std::size_t>(p.expected);
    }
    // Without the end-of-file rule, the window ending at the file's flagged last line hashes
    // differently from the indexes' view of it: try it on its own.
    std::optional<std::size_t> extra;
    if (!strict && last_no_newline_ && check(hi)) extra = hi;
    return nearer(search(fs, img, p, target, check), extra, p.expected);
  }

  /// find() past the fast path: the candidates from the rarest line's occurrences or from the
  /// window index.
  template <class Check>
  std::optional<std::size_t> search(FileSide& fs, ImageText& img, const Probe& p, u64 target,
                                    Check check) {
    const auto lo64 = static_cast<std::int64_t>(p.lo);
    const auto hi64 = static_cast<std::int64_t>(n_ - p.count);
    WindowIndex& wi = fs.window_index(p.count);
    std::uint64_t visited = 0;
    if (!wi.built) {
      // Anchor on the image line with the fewest occurrences in the file.
      std::size_t anchor = 0;
      Range range{nullptr, nullptr};
      std::vector<Range>& occ = img.occurrences(p.strict_eof);
      if (occ.empty()) {  // once per image and mode, not per fuzz level
        occ.resize(img.size());
        for (std::size_t j = 0; j < img.size(); ++j) {
          occ[j] = fs.occurrences(img.window(j, 1, p.strict_eof, cache_.pow));
        }
      }
      for (std::size_t k = 0; k < p.count; ++k) {
        const Range r = occ[p.first + k];
        if (r.first == r.second) return std::nullopt;
        if (range.first == nullptr || r.second - r.first < range.second - range.first) {
          range = r;
          anchor = k;
          if (r.second - r.first == 1) break;
        }
      }
      const auto candidates = static_cast<std::uint64_t>(range.second - range.first);
      if (wi.scanned + candidates <= 4 * static_cast<std::uint64_t>(n_) + 64) {
        const auto a64 = static_cast<std::int64_t>(anchor);
        auto start_of = [a64](std::size_t line) { return static_cast<std::int64_t>(line) - a64; };
        const std::optional<std::size_t> r =
            nearest(range.first, range.second, start_of, p.expected, lo64, hi64, check, visited);
        wi.scanned += visited;
        return r;
      }
      fs.build_window_index(wi, p.count);
    }
    const auto range = fs.windows_with(wi, p.count, target);
    auto start_of = [](std::size_t pos) { return static_cast<std::int64_t>(pos); };
    return nearest(range.first, range.second, start_of, p.expected, lo64, hi64, check, visited);
  }

  /// Edge context dropped at fuzz level f: (top, bottom).
  std::pair<std::size_t, std::size_t> drop_at(std::uint64_t f) const {
    return {static_cast<std::size_t>(std::min<std::uint64_t>(f, images_.leading)),
            static_cast<std::size_t>(std::min<std::uint64_t>(f, images_.trailing))};
  }

  /// The highest fuzz level worth trying: beyond the longer edge context nothing changes.
  std::uint64_t max_level() const {
    return std::min<std::uint64_t>(options_.fuzz, std::max(images_.leading, images_.trailing));
  }

  /// Searches one image with `top`/`bottom` context lines dropped. An image that fuzz would
  /// empty does not match (it would match anywhere).
  std::optional<Found> try_image(TextMode mode, ImageText& img, std::int64_t expected,
                                 std::size_t lo, std::size_t top, std::size_t bottom,
                                 bool strict_eof) {
    Probe p;
    if (img.size() != 0) {
      if (top + bottom >= img.size()) return std::nullopt;
      p.first = top;
      p.count = img.size() - top - bottom;
    }
    p.expected = expected + static_cast<std::int64_t>(p.first);
    p.lo = lo;
    p.strict_eof = strict_eof;
    const std::optional<std::size_t> pos = find(mode, img, p);
    if (!pos) return std::nullopt;
    return Found{*pos, p.count};
  }

  HunkMatch match_one(const Hunk& hunk, std::size_t lo, std::int64_t offset) {
    const bool pre_empty = images_.pre.empty();
    const bool post_empty = images_.post.empty();
    const std::int64_t pre_base = header_base(hunk.old_start, pre_empty);
    const std::int64_t post_base = header_base(hunk.new_start, post_empty);
    pre_text_.build(images_.pre, base_mode_);
    post_text_.build(images_.post, base_mode_);

    HunkMatch m;
    std::pair<std::size_t, std::size_t> last_drop{SIZE_MAX, SIZE_MAX};
    const std::uint64_t levels = max_level();
    for (std::uint64_t f = 0; f <= levels; ++f) {
      const auto drop = drop_at(f);
      if (drop == last_drop) continue;  // nothing more to drop: same search as before
      last_drop = drop;
      const auto [top, bottom] = drop;
      const std::optional<Found> pre =
          try_image(base_mode_, pre_text_, pre_base + offset, lo, top, bottom, true);
      const std::optional<Found> post =
          try_image(base_mode_, post_text_, post_base + offset, lo, top, bottom, true);
      if (!pre && !post) continue;

      bool applied = post.has_value();
      if (pre && post) {
        applied = choose_applied(*pre, *post, pre_base + offset, post_base + offset, pre_empty,
                                 post_empty, top);
        m.both_images = !pre_empty && !post_empty;
      }
      const Found& found = applied ? *post : *pre;
      const std::int64_t base = applied ? post_base : pre_base;
      const std::size_t first = (applied ? post_empty : pre_empty) ? 0 : top;
      m.status = applied ? HunkStatus::kApplied : HunkStatus::kApplicable;
      // Like GNU patch, report where the whole hunk starts, fuzz-dropped context included
      // (clamped to line 1 when dropped lines would lie before the file's start).
      m.line = found.pos >= first ? found.pos - first + 1 : 1;
      m.offset = static_cast<std::int64_t>(found.pos) - base - static_cast<std::int64_t>(first);
      m.fuzz = static_cast<unsigned>(f);
      match_end_ = found.pos + found.count;
      return m;
    }
    m.diagnostic = diagnose(pre_base + offset, post_base + offset, lo);
    if (m.diagnostic.empty()) find_closest(m, pre_base + offset, post_base + offset);
    return m;
  }

  /// Fills the closest_* fields of a conflict (see HunkMatch): bounded to 2 x (2 x
  /// kClosestWindow + 1) placements of each image, compared line by line as the options say.
  void find_closest(HunkMatch& m, std::int64_t pre_expected, std::int64_t post_expected) const {
    const auto window = static_cast<std::int64_t>(kClosestWindow);
    const auto n = static_cast<std::int64_t>(n_);
    std::size_t best_agree = 0;
    std::int64_t best_distance = 0;
    for (const bool pre : {true, false}) {
      const std::vector<const HunkLine*>& img = pre ? images_.pre : images_.post;
      if (img.empty()) continue;
      const std::int64_t expected = pre ? pre_expected : post_expected;
      const std::int64_t from = std::max<std::int64_t>(0, expected - window);
      const std::int64_t to = std::min<std::int64_t>(n - 1, expected + window);
      for (std::int64_t pos = from; pos <= to; ++pos) {
        std::size_t agree = 0, first_diff = SIZE_MAX;
        for (std::size_t k = 0; k < img.size(); ++k) {
          const auto line = static_cast<std::size_t>(pos) + k;
          if (line < n_ && same_line(file_.line(line), img[k]->text)) {
            ++agree;
          } else if (first_diff == SIZE_MAX) {
            first_diff = line;
          }
        }
        const std::int64_t distance = pos > expected ? pos - expected : expected - pos;
        if (2 * agree < img.size() || agree == 0 || agree == img.size()) continue;
        if (agree > best_agree || (agree == best_agree && distance < best_distance)) {
          best_agree = agree;
          best_distance = distance;
          m.closest_image = pre ? Image::kPre : Image::kPost;
          m.closest_line = static_cast<std::size_t>(pos) + 1;
          m.closest_agree = agree;
          m.closest_lines = img.size();
          m.closest_differs_at = first_diff + 1;
        }
      }
    }
  }

  /// Line equality for find_closest(): byte for byte, or white space folded (normalise()).
  bool same_line(std::string_view file_line, std::string_view image_line) const {
    if (!options_.ignore_whitespace) return file_line == image_line;
    std::string a, b;
    a.reserve(file_line.size());  // normalise() must never reallocate its storage
    b.reserve(image_line.size());
    return normalise(file_line, TextMode::kFoldWs, a) ==
           normalise(image_line, TextMode::kFoldWs, b);
  }

  /// The tie rule (documented at match_hunks()). True for applied.
  bool choose_applied(const Found& pre, const Found& post, std::int64_t pre_expected,
                      std::int64_t post_expected, bool pre_empty, bool post_empty,
                      std::size_t top) {
    // An empty image matches anywhere: it is no evidence against the other image.
    if (pre_empty != post_empty) return pre_empty;
    if (pre_empty) return true;
    const std::size_t pre_end = pre.pos + pre.count;
    const std::size_t post_end = post.pos + post.count;
    const bool same_span = pre.pos == post.pos && pre_end == post_end;
    if (!same_span) {
      // One occurrence inside the other: the longer image explains the shorter one (a pure
      // insertion's pre-image sits inside its post-image, a pure deletion's the other way).
      if (pre.pos >= post.pos && pre_end <= post_end) return true;
      if (post.pos >= pre.pos && post_end <= pre_end) return false;
      const std::int64_t pre_dist = std::abs(static_cast<std::int64_t>(pre.pos) -
                                             (pre_expected + static_cast<std::int64_t>(top)));
      const std::int64_t post_dist = std::abs(static_cast<std::int64_t>(post.pos) -
                                              (post_expected + static_cast<std::int64_t>(top)));
      if (post_dist != pre_dist) return post_dist < pre_dist;
    }
    // Still tied. When white space is ignored, an image that also matches byte for byte wins.
    if (options_.ignore_whitespace) {
      exact_pre_.build(images_.pre, TextMode::kExact);
      exact_post_.build(images_.post, TextMode::kExact);
      Probe p;
      p.first = top;
      p.count = pre.count;
      const bool pre_exact = verify(TextMode::kExact, exact_pre_, p, pre.pos);
      p.count = post.count;
      const bool post_exact = verify(TextMode::kExact, exact_post_, p, post.pos);
      if (pre_exact != post_exact) return post_exact;
    }
    return true;
  }

  /// Why neither image matched: the first relaxation under which one of them does.
  std::string diagnose(std::int64_t pre_expected, std::int64_t post_expected, std::size_t lo) {
    struct Relaxation {
      TextMode mode;
      bool strict_eof;
      bool any_order;  // search before the end of the previous hunk's match too
      const char* code;
    };
    std::array<Relaxation, 4> tries{};
    std::size_t count = 0;
    if (base_mode_ == TextMode::kExact) {
      tries[count++] = {TextMode::kStripCr, true, false, "line-ending-mismatch"};
      tries[count++] = {TextMode::kFoldWs, true, false, "whitespace-only-mismatch"};
    }
    if (last_no_newline_ || images_.any_no_newline) {
      tries[count++] = {base_mode_, false, false, "final-newline-mismatch"};
    }
    if (lo > 0) tries[count++] = {base_mode_, true, true, "out-of-order"};
    const std::uint64_t levels = max_level();
    for (std::size_t t = 0; t < count; ++t) {
      const Relaxation& r = tries[t];
      pre_text_.build(images_.pre, r.mode);
      post_text_.build(images_.post, r.mode);
      std::pair<std::size_t, std::size_t> last_drop{SIZE_MAX, SIZE_MAX};
      for (std::uint64_t f = 0; f <= levels; ++f) {
        const auto drop = drop_at(f);
        if (drop == last_drop) continue;
        last_drop = drop;
        for (const bool pre : {true, false}) {
          ImageText& img = pre ? pre_text_ : post_text_;
          if (img.size() == 0) continue;  // an empty image explains nothing
          if (try_image(r.mode, img, pre ? pre_expected : post_expected, r.any_order ? 0 : lo,
                        drop.first, drop.second, r.strict_eof)) {
            return r.code;
          }
        }
      }
    }
    return "";
  }

  const FileText& file_;
  MatchCache& cache_;
  const MatchOptions& options_;
  const std::size_t n_;
  const bool last_no_newline_;
  const TextMode base_mode_;
  HunkImages images_;
  ImageText pre_text_, post_text_, exact_pre_, exact_post_;
  std::size_t match_end_ = 0;  // first line after the last successful match's compared lines
};

}  // namespace

std::vector<HunkMatch> match_hunks(const FileText& file, const std::vector<Hunk>& hunks,
                                   const MatchOptions& options) {
  Matcher matcher(file, options);
  return matcher.run(hunks);
}

}  // namespace sm120check
