// Internal to src/match: line hashing and normalisation, the per-file cache
// (detail::MatchCache), and the two sides of a comparison: FileSide over a file's lines and
// ImageText over a hunk image. Shared by the exact matcher (match.cpp) and the drift search
// (drift.cpp); nothing outside src/match includes it.
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
#pragma once

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sm120check/match.hpp"

namespace sm120check::detail {

// --- Hashing -----------------------------------------------------------------------------------

using u64 = std::uint64_t;
__extension__ typedef unsigned __int128 U128;

constexpr u64 kMod = (u64{1} << 61) - 1;

inline u64 mod_reduce(u64 x) {
  x = (x & kMod) + (x >> 61);
  return x >= kMod ? x - kMod : x;
}
inline u64 mod_mul(u64 a, u64 b) {
  const U128 p = static_cast<U128>(a) * b;
  return mod_reduce((static_cast<u64>(p) & kMod) + static_cast<u64>(p >> 61));
}
inline u64 mod_add(u64 a, u64 b) {
  const u64 r = a + b;
  return r >= kMod ? r - kMod : r;
}
inline u64 mod_sub(u64 a, u64 b) { return a >= b ? a - b : a + kMod - b; }

inline u64 mix(u64 x) {
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

inline const HashKeys& keys() {
  static const HashKeys k = [] {
    u64 s = static_cast<u64>(std::chrono::steady_clock::now().time_since_epoch().count());
    // getrandom(2), not std::random_device: libstdc++'s asks CPUID whether RDRAND exists
    // first, and CPUID traps to the hypervisor in a virtual machine (7 us each on the
    // development VM, three of them per run).
    u64 r = 0;
    if (::getrandom(&r, sizeof r, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof r))
      s ^= r;  // else (no entropy yet, ENOSYS): the clock alone will do
    HashKeys out;
    out.seed = mix(s);
    out.base = mix(out.seed) % (kMod - (u64{1} << 32)) + (u64{1} << 32);
    out.flag = mix(out.base);
    return out;
  }();
  return k;
}

/// The 128-bit product of `a` and `b`, folded to 64 bits (wyhash's "mum").
inline u64 fold_mul(u64 a, u64 b) {
  const U128 p = static_cast<U128>(a) * b;
  return static_cast<u64>(p) ^ static_cast<u64>(p >> 64);
}

/// Seeded 64-bit hash of a line: 16 bytes per 128-bit multiply (as wyhash), then mix(). Every
/// line of a file and of a hunk image is hashed: a multiply per 8 bytes was a tenth of the
/// time of a large patch.
inline u64 hash_text(std::string_view s) {
  constexpr u64 k1 = 0xa0761d6478bd642fULL, k2 = 0xe7037ed1a0b428dbULL, k3 = 0x8ebc6af09c88c6e3ULL;
  const char* p = s.data();
  std::size_t n = s.size();
  u64 h = fold_mul(keys().seed ^ k1, static_cast<u64>(n) ^ k2);
  for (; n >= 16; p += 16, n -= 16) {
    u64 a = 0, b = 0;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    h = fold_mul(a ^ k1 ^ h, b ^ k3);
  }
  // The last 0..15 bytes by fixed-size loads, overlapping where they are fewer (as wyhash:
  // the length is in h): a memcpy of a variable size was a fifth of the hashing.
  const auto load = [](const char* at, std::size_t bytes) {
    u64 v = 0;
    if (bytes == 8) {
      std::memcpy(&v, at, 8);
    } else {
      std::uint32_t w = 0;
      std::memcpy(&w, at, 4);
      v = w;
    }
    return v;
  };
  u64 a = 0, b = 0;
  if (n >= 8) {
    a = load(p, 8);
    b = load(p + n - 8, 8);
  } else if (n >= 4) {
    a = load(p, 4);
    b = load(p + n - 4, 4);
  } else if (n > 0) {
    const auto byte = [&](std::size_t i) {
      return static_cast<u64>(static_cast<unsigned char>(p[i]));
    };
    a = byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1);
  }
  return mix(fold_mul(a ^ k2 ^ h, b ^ k3));
}

/// A cheap fingerprint of a line: its length and its first, middle and last 8 bytes (fewer,
/// overlapping, in a shorter line), mixed. Equal lines have equal ones; unequal lines rarely
/// do (a collision only keeps the matcher from ruling a place out: see ImageAbsence).
inline u64 line_print(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  u64 a = 0, b = 0, c = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
    if (n > 16) std::memcpy(&c, p + n / 2 - 4, 8);
  } else if (n >= 4) {
    std::uint32_t x = 0, y = 0;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  } else {
    for (std::size_t i = 0; i < n; ++i) a = a << 8 | static_cast<unsigned char>(p[i]);
  }
  return mix(fold_mul(a ^ 0xa0761d6478bd642fULL, b ^ 0xe7037ed1a0b428dbULL) ^ c ^ (n << 48));
}

/// A line's value in the polynomial hash: plain, or flagged (last line without final newline).
inline u64 line_value(u64 h, bool flagged) {
  return mod_reduce(flagged ? mix(h ^ keys().flag) : h);
}

// --- Normalisation -----------------------------------------------------------------------------

/// How line text is compared.
enum class TextMode : std::size_t {
  kExact = 0,    ///< byte for byte
  kStripCr = 1,  ///< "\r" at the end of a line ignored
  kFoldWs = 2,   ///< runs of white space folded to one space, trailing white space ignored
};
constexpr std::size_t kTextModeCount = 3;

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// True when folding would change `s`.
inline bool needs_fold(std::string_view s) {
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
inline bool changes(std::string_view s, TextMode mode) {
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
inline std::string_view normalise(std::string_view s, TextMode mode, std::string& storage) {
  switch (mode) {
    case TextMode::kExact:
      return s;
    case TextMode::kStripCr:
      while (!s.empty() && s.back() == '\r') s.remove_suffix(1);
      return s;
    case TextMode::kFoldWs: {
      if (!needs_fold(s)) return s;
      const std::size_t begin = storage.size();
      storage.resize(begin + s.size());  // a fold is never longer than what it folds
      char* const first = storage.data() + begin;
      char* out = first;
      bool in_space = false;
      for (const char c : s) {
        if (is_space(c)) {
          in_space = true;
          continue;
        }
        if (in_space) *out++ = ' ';
        in_space = false;
        *out++ = c;
      }
      const auto size = static_cast<std::size_t>(out - first);
      storage.resize(begin + size);
      return {first, size};
    }
  }
  return s;
}

/// True when `raw` folded (as normalise(kFoldWs)) equals `folded`, without building the fold.
inline bool fold_equals(std::string_view raw, std::string_view folded) {
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
inline bool line_equals(std::string_view raw, std::string_view norm, TextMode mode) {
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

// --- Per-file cache ----------------------------------------------------------------------------

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
  /// The occurrence index, built on first need in O(lines): line numbers grouped by value,
  /// ascending within a group; group g is by_value[group_start[g], group_start[g + 1]).
  std::vector<std::size_t> by_value;
  std::vector<std::uint32_t> group_start;
  /// Open addressing over the groups (linear probing, a power of two at least 1.5 times the
  /// lines): group + 1, 0 for a free slot; a group's value is its first line's.
  std::vector<std::uint32_t> groups;
  bool by_value_built = false;
  std::unordered_map<std::size_t, WindowIndex> windows;  ///< by window length
};

/// Where a file's section headers are (see nearest_header_is() in drift.hpp), built once per
/// file: each query is then a few binary searches instead of a scan up the file.
struct SectionIndex {
  bool built = false;
  /// Header lines, ascending: [0] git's default rule (a line starting with a letter, "_" or
  /// "$"), [1] the Python rule (a def or class line at any indentation, not inside a
  /// triple-quoted string), [2] both, without the lines inside a triple-quoted string: the
  /// definitions that may enclose a line (see enclosing_definitions() in drift.cpp).
  std::array<std::vector<std::uint32_t>, 3> headers;
  /// Per line, whether it starts inside a triple-quoted string (a docstring's text: a
  /// `def decode(...)` there is no definition).
  std::vector<bool> in_string;
  /// Definition lines (a def/class line, or a C-like signature) of headers[2] by the name they
  /// define (definition_name() in drift.cpp); views into the file.
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> by_name;
  /// Lines by the first kSectionKey bytes of their trimmed text (shorter lines by all of it),
  /// ascending; views into the file.
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> by_key;
  /// The keys of by_key in byte order, built on the first lookup of a section shorter than a
  /// key (those starting with it are then one range: O(log keys) a lookup, not a pass).
  std::vector<std::string_view> sorted_keys;
  /// Per section text asked for: the lines whose trimmed text starts with it, ascending.
  /// Holds at most kMaxSections entries (further sections are looked up, not kept).
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_section;
};

struct MatchCache {
  SectionIndex sections;
  std::vector<std::uint64_t> pow;  ///< base^i mod kMod, i = 0..size()
  std::array<ModeData, kTextModeCount> modes;
  /// The mode whose data a mode uses (a mode that changes no line shares the exact mode's).
  std::array<std::size_t, kTextModeCount> rep{};
  std::array<bool, kTextModeCount> rep_known{};
  std::uint64_t clock = 0;
  std::size_t built_windows = 0;
  std::size_t index_builds = 0;  ///< window indexes built for this file, evicted ones included
};

/// Window indexes kept per file at most (each one 8 bytes per file line); the least recently
/// used one is dropped beyond that.
constexpr std::size_t kMaxWindowIndexes = 4;
/// Window indexes built per file at most (see FileSide::may_build_index()).
constexpr std::size_t kMaxIndexBuilds = 16;

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
    if (!data_->by_value_built) build_occurrences();
    const std::vector<std::uint32_t>& table = data_->groups;
    const std::vector<std::uint32_t>& start = data_->group_start;
    const std::size_t* lines = data_->by_value.data();
    const std::size_t mask = table.size() - 1;
    for (std::size_t slot = v & mask; table[slot] != 0; slot = (slot + 1) & mask) {
      const std::size_t g = table[slot] - 1;
      if (window(lines[start[g]], 1) == v) return {lines + start[g], lines + start[g + 1]};
    }
    return {lines, lines};
  }

  WindowIndex& window_index(std::size_t len) {
    WindowIndex& wi = data_->windows[len];
    wi.last_use = ++cache_.clock;
    return wi;
  }

  /// Builds `wi`, the index of the windows of length `len` (1 <= len <= size()).
  /// False once kMaxIndexBuilds indexes were built for the file: past that, many distinct
  /// image lengths would rebuild (and evict) them in turn, O(n log n) each; scanning a line's
  /// occurrences (O(1) a candidate) is then cheaper.
  bool may_build_index() const { return cache_.index_builds < kMaxIndexBuilds; }

  void build_window_index(WindowIndex& wi, std::size_t len) {
    ++cache_.index_builds;
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

  /// Groups the lines by value (see ModeData::by_value): a hash table of the values, then a
  /// counting sort of the lines by group, which keeps each group ascending. Line numbers are
  /// held in 32 bits (a file of 2^32 lines would take 64 GiB of line views first).
  void build_occurrences() {
    if (n_ >= UINT32_MAX) throw std::length_error("file too long to index (2^32 lines)");
    std::vector<u64> values(n_);
    for (std::size_t i = 0; i < n_; ++i) values[i] = window(i, 1);
    std::size_t cap = 16;
    while (cap < n_ + n_ / 2) cap *= 2;  // at most 2/3 full
    std::vector<std::uint32_t>& table = data_->groups;
    table.assign(cap, 0);
    const std::size_t mask = cap - 1;
    std::vector<std::uint32_t> group_of(n_);
    std::vector<u64> group_value;
    std::vector<std::uint32_t>& start = data_->group_start;
    start.assign(1, 0);  // start[g + 1] counts group g's lines, then prefix sums make starts
    for (std::size_t i = 0; i < n_; ++i) {
      std::size_t slot = values[i] & mask;
      while (table[slot] != 0 && group_value[table[slot] - 1] != values[i])
        slot = (slot + 1) & mask;
      if (table[slot] == 0) {
        group_value.push_back(values[i]);
        start.push_back(0);
        table[slot] = static_cast<std::uint32_t>(group_value.size());
      }
      group_of[i] = table[slot] - 1;
      ++start[group_of[i] + 1];
    }
    for (std::size_t g = 1; g < start.size(); ++g) start[g] += start[g - 1];
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    data_->by_value.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) data_->by_value[next[group_of[i]]++] = i;
    data_->by_value_built = true;
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
  /// With `any_final_newline`, a line marked no_newline_at_eof is taken as an ordinary line
  /// (for a file that ends with a newline: an editor added the one the patch lacks).
  void build(const std::vector<const HunkLine*>& lines, TextMode mode,
             bool any_final_newline = false) {
    std::size_t total = 0;
    for (const HunkLine* line : lines) total += line->text.size();
    storage_.clear();
    storage_.reserve(mode == TextMode::kFoldWs ? total : 0);
    const std::size_t m = lines.size();
    text_.resize(m);
    no_newline_.resize(m);
    prefix_strict_.resize(m + 1);
    prefix_strict_[0] = 0;
    for (std::vector<Range>& occ : occurrences_) occ.clear();
    const u64 base = keys().base;
    // Without a flagged line the plain values are the strict ones: prefix_plain_ is computed
    // only for an image that has one (a file's last line without newline).
    plain_is_strict_ =
        any_final_newline || std::none_of(lines.begin(), lines.end(), [](const HunkLine* l) {
          return l->no_newline_at_eof;
        });
    if (!plain_is_strict_) {
      prefix_plain_.resize(m + 1);
      prefix_plain_[0] = 0;
    }
    for (std::size_t j = 0; j < m; ++j) {
      text_[j] = normalise(lines[j]->text, mode, storage_);
      no_newline_[j] = lines[j]->no_newline_at_eof && !any_final_newline;
      const u64 h = hash_text(text_[j]);
      prefix_strict_[j + 1] =
          mod_add(mod_mul(prefix_strict_[j], base), line_value(h, no_newline_[j] != 0));
      if (!plain_is_strict_)
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
    const std::vector<u64>& prefix = strict || plain_is_strict_ ? prefix_strict_ : prefix_plain_;
    return mod_sub(prefix[first + len], mod_mul(prefix[first], pow[len]));
  }

 private:
  std::string storage_;
  std::vector<std::string_view> text_;
  std::vector<unsigned char> no_newline_;
  std::vector<u64> prefix_strict_, prefix_plain_;
  bool plain_is_strict_ = true;  ///< no line is flagged: prefix_plain_ is not built
  std::array<std::vector<Range>, 2> occurrences_;
};

/// A hunk split into its two images, plus where its edge context lies.
struct HunkImages {
  std::vector<const HunkLine*> pre;
  std::vector<const HunkLine*> post;
  std::size_t leading = 0;   ///< context lines before the first added/removed line
  std::size_t trailing = 0;  ///< context lines after the last added/removed line
  bool any_no_newline = false;
  bool changes = false;  ///< the hunk adds or removes a line (false for context only)
  /// The hunk's body lines [begin, end) these images were built from.
  const HunkLine* begin = nullptr;
  const HunkLine* end = nullptr;

  /// The hunk header's section (function context), "" when none.
  std::string_view section;

  void build(const Hunk& hunk) {
    build(hunk.lines.data(), hunk.lines.data() + hunk.lines.size());
    section = hunk.section;
  }

  /// Images of the body lines [first, last) of a hunk (a whole hunk, or one change group of it
  /// with the context around it).
  void build(const HunkLine* first, const HunkLine* last) {
    pre.clear();
    post.clear();
    any_no_newline = false;
    changes = false;
    begin = first;
    end = last;
    section = {};
    leading = trailing = 0;
    for (const HunkLine* line = first; line != last; ++line) {
      if (line->kind != LineKind::kAdded) pre.push_back(line);
      if (line->kind != LineKind::kRemoved) post.push_back(line);
      any_no_newline = any_no_newline || line->no_newline_at_eof;
      if (line->kind != LineKind::kContext) {
        if (!changes) leading = static_cast<std::size_t>(line - first);
        changes = true;
        trailing = static_cast<std::size_t>(last - line) - 1;
      }
    }
  }
};

/// Where an image may match (see match_hunks(), "Anchors").
enum class Anchor {
  kNone,      ///< anywhere, nearest the expected line first
  kStart,     ///< only at the start of the file (less leading than trailing context, line 1)
  kEnd,       ///< only at the end of the file (less trailing than leading context)
  kExpected,  ///< only at the expected line (a hunk without context at either edge)
  kWhole,     ///< only as the whole file (no context at either edge but some between, line 1)
};

/// The lines of one image (by index in the image) that no line of the file equals, and the
/// pairs of consecutive image lines that no two consecutive lines of the file equal (exact
/// comparison, end-of-file flags aside): an image range holding one matches nowhere in the file.
struct ImageAbsence {
  std::vector<std::uint32_t> lines;  ///< ascending
  std::vector<std::uint32_t> pairs;  ///< j for the pair of lines j and j + 1; ascending
  /// True when image lines [first, first + count) hold an absent line or pair.
  bool within(std::size_t first, std::size_t count) const {
    const auto any_in = [](const std::vector<std::uint32_t>& v, std::size_t lo, std::size_t hi) {
      const auto it = std::lower_bound(v.begin(), v.end(), lo);
      return it != v.end() && *it < hi;
    };
    return count > 0 &&
           (any_in(lines, first, first + count) || any_in(pairs, first, first + count - 1));
  }
};

/// What one image's search asks for: compare image lines [first, first + count) with the file,
/// starting no earlier than `lo`, nearest to `expected` (0-based line of image line `first`).
struct Probe {
  std::size_t first = 0;
  std::size_t count = 0;
  std::size_t bottom = 0;  ///< image lines left out after first + count (fuzz)
  std::int64_t expected = 0;
  std::size_t lo = 0;
  bool strict_eof = true;  ///< honour the end-of-file newline flags
  Anchor anchor = Anchor::kNone;
  /// The image's lines and pairs that stand nowhere in the file, when known (kExact only): a
  /// probe holding one is not searched for.
  const ImageAbsence* absent = nullptr;
};

/// True when image lines [first, first + count) of `img` equal the file's lines from `pos`
/// (pos + count <= file.size()), compared in `mode`; with `strict_eof`, a line marked
/// no_newline_at_eof must be the file's last line without final newline and vice versa.
inline bool image_at(const FileText& file, TextMode mode, const ImageText& img, std::size_t first,
                     std::size_t count, std::size_t pos, bool strict_eof) {
  const bool last_no_newline = file.size() > 0 && !file.final_newline();
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = pos + k;
    const std::size_t j = first + k;
    if (!line_equals(file.line(i), img.text(j), mode)) return false;
    if (strict_eof && (last_no_newline && i + 1 == file.size()) != img.no_newline(j)) return false;
  }
  return true;
}

/// One image's match: 0-based start line and number of lines compared.
struct Found {
  std::size_t pos = 0;
  std::size_t count = 0;
};

inline std::size_t clamp_line(std::int64_t v, std::size_t lo, std::size_t hi) {
  if (v < 0) return lo;
  return std::clamp(static_cast<std::size_t>(v), lo, hi);
}

/// The nearer of two candidate starts to `expected`; at equal distance the later one.
inline std::optional<std::size_t> nearer(std::optional<std::size_t> a, std::optional<std::size_t> b,
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

}  // namespace sm120check::detail
