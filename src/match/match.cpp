// The hunk matcher (see match.hpp for the contract and the tie rule).
//
// Every file line is normalised (per comparison mode) and hashed once per match_hunks() call; an
// image is compared hash first, then text, then the end-of-file newline flag. A hunk is first
// tried at its expected line; when it is not there, a sorted (hash, line) index of the file
// (built once, lazily) yields the candidate starts of the image's rarest line, which are visited
// in order of distance from the expected line, so the nearest match is found without scanning
// the file.
#include "sm120check/match.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm120check {

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
// optimisation), so the views are rebased onto the new buffer.
FileText::FileText(FileText&& other) noexcept { *this = std::move(other); }

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this == &other) return *this;
  const char* old_data = other.content_.data();
  content_ = std::move(other.content_);
  lines_ = std::move(other.lines_);
  final_newline_ = other.final_newline_;
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

std::uint64_t hash_text(std::string_view s) {
  return static_cast<std::uint64_t>(std::hash<std::string_view>{}(s));
}

// --- File side ---------------------------------------------------------------------------------

/// A file's lines normalised and hashed for one TextMode, with a lazily built (hash, line) index.
class FileSpace {
 public:
  void build(const FileText& file, TextMode mode) {
    const std::size_t n = file.size();
    storage_.reserve(mode == TextMode::kFoldWs ? file.content().size() : 0);
    text_.resize(n);
    hash_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      text_[i] = normalise(file.line(i), mode, storage_);
      hash_[i] = hash_text(text_[i]);
    }
  }

  std::string_view text(std::size_t i) const { return text_[i]; }
  std::uint64_t hash(std::size_t i) const { return hash_[i]; }

  using Entry = std::pair<std::uint64_t, std::size_t>;  // (hash, 0-based line)
  using Range = std::pair<const Entry*, const Entry*>;

  /// The lines with hash `h`, in ascending order.
  Range occurrences(std::uint64_t h) {
    if (!indexed_) {
      index_.resize(hash_.size());
      for (std::size_t i = 0; i < hash_.size(); ++i) index_[i] = {hash_[i], i};
      std::sort(index_.begin(), index_.end());
      indexed_ = true;
    }
    const Entry* first = index_.data();
    const Entry* last = first + index_.size();
    const Entry* lo = std::lower_bound(first, last, h,
                                       [](const Entry& e, std::uint64_t v) { return e.first < v; });
    const Entry* hi =
        std::upper_bound(lo, last, h, [](std::uint64_t v, const Entry& e) { return v < e.first; });
    return {lo, hi};
  }

 private:
  std::string storage_;
  std::vector<std::string_view> text_;
  std::vector<std::uint64_t> hash_;
  std::vector<Entry> index_;
  bool indexed_ = false;
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
    text_.resize(lines.size());
    hash_.resize(lines.size());
    no_newline_.resize(lines.size());
    for (std::size_t j = 0; j < lines.size(); ++j) {
      text_[j] = normalise(lines[j]->text, mode, storage_);
      hash_[j] = hash_text(text_[j]);
      no_newline_[j] = lines[j]->no_newline_at_eof;
    }
  }

  std::size_t size() const { return text_.size(); }
  std::string_view text(std::size_t j) const { return text_[j]; }
  std::uint64_t hash(std::size_t j) const { return hash_[j]; }
  bool no_newline(std::size_t j) const { return no_newline_[j] != 0; }

 private:
  std::string storage_;
  std::vector<std::string_view> text_;
  std::vector<std::uint64_t> hash_;
  std::vector<unsigned char> no_newline_;
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

// --- The per-file matcher ----------------------------------------------------------------------

class Matcher {
 public:
  Matcher(const FileText& file, const MatchOptions& options)
      : file_(file),
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
  FileSpace& space(TextMode mode) {
    const auto k = static_cast<std::size_t>(mode);
    if (!built_[k]) {
      spaces_[k].build(file_, mode);
      built_[k] = true;
    }
    return spaces_[k];
  }

  /// 0-based line where image line 0 is expected before any offset; for an empty image, the line
  /// before which it sits ("@@ -5,0" inserts after line 5, i.e. before 0-based line 5).
  static std::int64_t header_base(std::uint32_t start, bool empty) {
    if (empty) return static_cast<std::int64_t>(start);
    return start == 0 ? 0 : static_cast<std::int64_t>(start) - 1;
  }

  bool match_at(const FileSpace& fs, const ImageText& img, const Probe& p, std::size_t pos) const {
    for (std::size_t k = 0; k < p.count; ++k) {
      const std::size_t i = pos + k;
      const std::size_t j = p.first + k;
      if (fs.hash(i) != img.hash(j)) return false;
      if (fs.text(i) != img.text(j)) return false;
      if (p.strict_eof && (last_no_newline_ && i + 1 == n_) != img.no_newline(j)) return false;
    }
    return true;
  }

  /// Nearest start in [p.lo, n - p.count] where the image matches; ties go to the later line.
  std::optional<std::size_t> find(FileSpace& fs, const ImageText& img, const Probe& p) const {
    if (p.count == 0) return clamp_line(p.expected, std::min(p.lo, n_), n_);
    if (p.count > n_ || p.lo > n_ - p.count) return std::nullopt;
    const std::size_t hi = n_ - p.count;
    const auto lo64 = static_cast<std::int64_t>(p.lo);
    const auto hi64 = static_cast<std::int64_t>(hi);
    if (p.expected >= lo64 && p.expected <= hi64 &&
        match_at(fs, img, p, static_cast<std::size_t>(p.expected))) {
      return static_cast<std::size_t>(p.expected);
    }
    // Anchor on the image line with the fewest occurrences in the file.
    std::size_t anchor = 0;
    FileSpace::Range range{nullptr, nullptr};
    for (std::size_t k = 0; k < p.count; ++k) {
      const FileSpace::Range r = fs.occurrences(img.hash(p.first + k));
      if (r.first == r.second) return std::nullopt;
      if (range.first == nullptr || r.second - r.first < range.second - range.first) {
        range = r;
        anchor = k;
        if (r.second - r.first == 1) break;
      }
    }
    const auto a64 = static_cast<std::int64_t>(anchor);
    auto start_of = [a64](const FileSpace::Entry* e) {
      return static_cast<std::int64_t>(e->second) - a64;
    };
    auto first_at_or_after = [&](std::int64_t start) {
      return std::lower_bound(range.first, range.second, start,
                              [&](const FileSpace::Entry& e, std::int64_t s) {
                                return static_cast<std::int64_t>(e.second) - a64 < s;
                              });
    };
    // Right candidates: starts >= max(expected, lo); left ones: starts < min(expected, hi + 1).
    const FileSpace::Entry* right = first_at_or_after(std::max(p.expected, lo64));
    const FileSpace::Entry* left = first_at_or_after(std::min(p.expected, hi64 + 1));
    for (;;) {
      const bool has_right = right != range.second && start_of(right) <= hi64;
      const bool has_left = left != range.first && start_of(left - 1) >= lo64;
      if (!has_right && !has_left) return std::nullopt;
      std::int64_t start = 0;
      if (has_right &&
          (!has_left || start_of(right) - p.expected <= p.expected - start_of(left - 1))) {
        start = start_of(right++);
      } else {
        start = start_of(--left);
      }
      if (match_at(fs, img, p, static_cast<std::size_t>(start))) {
        return static_cast<std::size_t>(start);
      }
    }
  }

  /// Edge context dropped at fuzz level f: (top, bottom).
  std::pair<std::size_t, std::size_t> drop_at(unsigned f) const {
    return {std::min<std::size_t>(f, images_.leading), std::min<std::size_t>(f, images_.trailing)};
  }

  /// Searches one image with `top`/`bottom` context lines dropped. An image that fuzz would
  /// empty does not match (it would match anywhere).
  std::optional<Found> try_image(FileSpace& fs, const ImageText& img, std::int64_t expected,
                                 std::size_t lo, std::size_t top, std::size_t bottom,
                                 bool strict_eof) const {
    Probe p;
    if (img.size() != 0) {
      if (top + bottom >= img.size()) return std::nullopt;
      p.first = top;
      p.count = img.size() - top - bottom;
    }
    p.expected = expected + static_cast<std::int64_t>(p.first);
    p.lo = lo;
    p.strict_eof = strict_eof;
    const std::optional<std::size_t> pos = find(fs, img, p);
    if (!pos) return std::nullopt;
    return Found{*pos, p.count};
  }

  HunkMatch match_one(const Hunk& hunk, std::size_t lo, std::int64_t offset) {
    const bool pre_empty = images_.pre.empty();
    const bool post_empty = images_.post.empty();
    const std::int64_t pre_base = header_base(hunk.old_start, pre_empty);
    const std::int64_t post_base = header_base(hunk.new_start, post_empty);
    FileSpace& fs = space(base_mode_);
    pre_text_.build(images_.pre, base_mode_);
    post_text_.build(images_.post, base_mode_);

    HunkMatch m;
    std::pair<std::size_t, std::size_t> last_drop{SIZE_MAX, SIZE_MAX};
    for (unsigned f = 0; f <= options_.fuzz; ++f) {
      const auto drop = drop_at(f);
      if (drop == last_drop) continue;  // nothing more to drop: same search as before
      last_drop = drop;
      const auto [top, bottom] = drop;
      const std::optional<Found> pre =
          try_image(fs, pre_text_, pre_base + offset, lo, top, bottom, true);
      const std::optional<Found> post =
          try_image(fs, post_text_, post_base + offset, lo, top, bottom, true);
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
      m.fuzz = f;
      match_end_ = found.pos + found.count;
      return m;
    }
    m.diagnostic = diagnose(pre_base + offset, post_base + offset, lo);
    return m;
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
      FileSpace& exact = space(TextMode::kExact);
      exact_pre_.build(images_.pre, TextMode::kExact);
      exact_post_.build(images_.post, TextMode::kExact);
      Probe p;
      p.first = top;
      p.count = pre.count;
      const bool pre_exact = match_at(exact, exact_pre_, p, pre.pos);
      p.count = post.count;
      const bool post_exact = match_at(exact, exact_post_, p, post.pos);
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
    for (std::size_t t = 0; t < count; ++t) {
      const Relaxation& r = tries[t];
      FileSpace& fs = space(r.mode);
      pre_text_.build(images_.pre, r.mode);
      post_text_.build(images_.post, r.mode);
      std::pair<std::size_t, std::size_t> last_drop{SIZE_MAX, SIZE_MAX};
      for (unsigned f = 0; f <= options_.fuzz; ++f) {
        const auto drop = drop_at(f);
        if (drop == last_drop) continue;
        last_drop = drop;
        for (const bool pre : {true, false}) {
          const ImageText& img = pre ? pre_text_ : post_text_;
          if (img.size() == 0) continue;  // an empty image explains nothing
          if (try_image(fs, img, pre ? pre_expected : post_expected, r.any_order ? 0 : lo,
                        drop.first, drop.second, r.strict_eof)) {
            return r.code;
          }
        }
      }
    }
    return "";
  }

  const FileText& file_;
  const MatchOptions& options_;
  const std::size_t n_;
  const bool last_no_newline_;
  const TextMode base_mode_;
  std::array<FileSpace, kTextModeCount> spaces_;
  std::array<bool, kTextModeCount> built_{};
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
