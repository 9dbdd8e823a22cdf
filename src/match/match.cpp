// The hunk matcher (see match.hpp for the contract and the tie rule).
//
// Hashing, normalisation and the per-file indexes live in line_index.hpp.
#include "sm120check/match.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "drift.hpp"
#include "line_index.hpp"

namespace sm120check {

namespace detail {

MatchCache& match_cache(const FileText& file) {
  if (!file.cache_) file.cache_ = std::make_unique<MatchCache>();
  return *file.cache_;
}

}  // namespace detail

// --- FileText ----------------------------------------------------------------------------------

FileText::FileText(std::string content) : content_(std::move(content)) {
  const std::string_view all(content_);  // one pass: the vector grows as lines are found
  if (all.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("a file of 4 GiB or more cannot be matched");
  // Room for lines of 32 bytes on average (source code's are 30-45): most files are split
  // without a reallocation, which copied the offsets found so far and faulted in new pages.
  starts_.reserve(all.size() / 32 + 2);
  std::size_t start = 0;
  while (start < all.size()) {
    starts_.push_back(static_cast<std::uint32_t>(start));
    const std::size_t nl = all.find('\n', start);
    if (nl == std::string_view::npos) {
      final_newline_ = false;
      break;
    }
    start = nl + 1;
  }
  size_ = starts_.size();
  // The next line's start: past the last "\n", or past a "\n" the last line lacks.
  starts_.push_back(static_cast<std::uint32_t>(all.size() + (final_newline_ ? 0 : 1)));
}

FileText::FileText(FileText&& other) noexcept { *this = std::move(other); }

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this == &other) return *this;
  content_ = std::move(other.content_);  // the offsets hold for the moved buffer
  starts_ = std::move(other.starts_);
  size_ = other.size_;
  final_newline_ = other.final_newline_;
  cache_ = std::move(other.cache_);
  other.content_.clear();
  other.starts_.clear();
  other.size_ = 0;
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
    case HunkStatus::kUnknown:
      return "unknown";
  }
  return "conflict";
}

std::string_view to_string(MatchKind kind) {
  switch (kind) {
    case MatchKind::kNone:
      return "none";
    case MatchKind::kExact:
      return "exact";
    case MatchKind::kFuzz:
      return "fuzz";
    case MatchKind::kDrifted:
      return "drifted";
  }
  return "none";
}

std::string_view to_string(Presence presence) {
  switch (presence) {
    case Presence::kPresent:
      return "present";
    case Presence::kAbsent:
      return "absent";
    case Presence::kUnknown:
      return "unknown";
    case Presence::kPartial:
      return "partial";
  }
  return "unknown";
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

bool is_whole_image(std::string_view content, const std::vector<Hunk>& hunks, Image image) {
  const LineKind skip = image == Image::kPre ? LineKind::kAdded : LineKind::kRemoved;
  std::size_t at = 0;
  for (const Hunk& hunk : hunks) {
    for (const HunkLine& line : hunk.lines) {
      if (line.kind == skip) continue;
      if (content.compare(at, line.text.size(), line.text) != 0) return false;
      at += line.text.size();
      if (line.no_newline_at_eof) continue;
      if (at >= content.size() || content[at] != '\n') return false;
      ++at;
    }
  }
  return at == content.size();
}

namespace {

using namespace detail;

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
    std::vector<std::optional<Span>> spans(hunks.size());  // file lines each found hunk holds
    std::vector<std::int64_t> running(hunks.size());       // the offset each hunk started from
    std::vector<Coords> running_coords(hunks.size());      // the header lines it counts from
    std::size_t lo = 0;                                    // first line the next hunk may use
    std::int64_t offset = 0;                               // offset of the last matched hunk
    Coords coords = Coords::kOwn;                          // the header lines it counts from
    const std::vector<std::optional<Place>> by_order =
        options_.drift ? identical_hunks(hunks) : std::vector<std::optional<Place>>(hunks.size());
    find_absent(hunks);
    coincident_.assign(hunks.size(), std::nullopt);
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      images_.build(hunks[k]);
      running[k] = offset;
      running_coords[k] = coords;
      HunkMatch m = by_order[k] && by_order[k]->pos >= lo
                        ? at_place(hunks[k], *by_order[k])
                        : match_one(hunks[k], k, lo, offset, coords);
      if (found(m)) {
        offset = m.offset;
        coords = m.status == HunkStatus::kApplied ? Coords::kPost : Coords::kPre;
        lo = match_end_;
        spans[k] = Span{match_begin_, match_end_};
        m.image_begin = match_begin_;
        m.image_end = match_end_;
        m.dropped_top = static_cast<std::uint32_t>(match_top_);
        m.dropped_bottom = static_cast<std::uint32_t>(match_bottom_);
      }
      out.push_back(std::move(m));
    }
    if (options_.drift) {
      std::vector<std::optional<Dropped>> elsewhere = outside_section(hunks, out, spans, running);
      drift_pass(hunks, out, spans);
      const std::vector<Span> taken = sorted_spans(spans);  // dropped matches' spans are free
      for (std::size_t k = 0; k < hunks.size(); ++k) {
        if (!elsewhere[k] || out[k].status == HunkStatus::kApplied) continue;
        // The drift search found nothing better. A pre-image standing elsewhere is where the
        // hunk applies (as `git apply` and --strict place it: the fix is not in, and the code
        // it changes has moved under another function), unless another hunk took its lines
        // meanwhile. A post-image elsewhere is never the fix being in (the named function
        // lacks it): unknown.
        Dropped& d = *elsewhere[k];
        if (d.match.status == HunkStatus::kApplicable && !overlaps(taken, d.span)) {
          out[k] = std::move(d.match);
          spans[k] = d.span;
          continue;
        }
        HunkMatch m;
        m.status = HunkStatus::kConflict;
        m.presence = Presence::kUnknown;
        m.presence_reason = "found-elsewhere";
        m.places = {d.match.line};
        out[k] = std::move(m);
      }
      recheck_far_matches(hunks, out, spans, running, running_coords);
      recheck_edited_copies(hunks, out, spans);
    }
    settle_coincident(out, spans);
    for (HunkMatch& m : out) {
      switch (m.status) {
        case HunkStatus::kApplied:
          m.presence = Presence::kPresent;
          break;
        case HunkStatus::kApplicable:
          m.presence = Presence::kAbsent;
          break;
        case HunkStatus::kUnknown:
          m.presence = Presence::kUnknown;
          break;
        case HunkStatus::kConflict:
          if (!options_.drift && m.presence_reason.empty()) {
            m.presence = Presence::kUnknown;
            m.presence_reason = "strict";
          }
          break;
      }
    }
    return out;
  }

 private:
  using Span = std::pair<std::size_t, std::size_t>;

  /// The header lines a hunk's offset counts from: those of the image it matched ("-" lines
  /// for the pre-image, "+" lines for the post-image); kOwn before any hunk is found (each
  /// image its own).
  enum class Coords { kOwn, kPre, kPost };

  /// Per hunk, what the drift search needs of the others, computed once per pass in O(hunks):
  /// the offset of the nearest found hunk before it (else after it, else 0), the lines
  /// between the found hunks around it [lo, hi), its own span, and every found hunk's span
  /// (sorted).
  struct Neighbours {
    std::vector<std::int64_t> offset;
    /// The hunk whose offset it is matched its pre-image (applicable): the offset counts in
    /// "-" header lines.
    std::vector<bool> pre;
    std::vector<std::size_t> lo, hi;
    std::vector<std::optional<Span>> own;
    std::vector<Span> claimed;

    Neighbours(const std::vector<std::optional<Span>>& spans, const std::vector<HunkMatch>& out,
               std::size_t n)
        : offset(spans.size(), 0),
          pre(spans.size(), false),
          lo(spans.size(), 0),
          hi(spans.size(), n),
          own(spans) {
      std::optional<std::size_t> last;
      std::vector<bool> before(spans.size(), false);
      for (std::size_t k = 0; k < spans.size(); ++k) {
        if (last) {
          offset[k] = out[*last].offset;
          pre[k] = out[*last].status == HunkStatus::kApplicable;
          lo[k] = spans[*last]->second;
          before[k] = true;
        }
        if (spans[k]) last = k;
      }
      std::optional<std::size_t> next;
      for (std::size_t k = spans.size(); k-- > 0;) {
        if (next) {
          if (!before[k]) {
            offset[k] = out[*next].offset;
            pre[k] = out[*next].status == HunkStatus::kApplicable;
          }
          hi[k] = std::max(spans[*next]->first, lo[k]);
        }
        if (spans[k]) next = k;
      }
      for (const std::optional<Span>& s : spans)
        if (s && s->first < s->second) claimed.push_back(*s);
      std::sort(claimed.begin(), claimed.end());
    }
  };

  /// Fills absent_: per hunk, the lines and the pairs of consecutive lines of its pre- and
  /// post-image that stand nowhere in the file (ImageAbsence), for all the hunks in one pass
  /// over the file's lines (their fingerprints, line_print(), computed as it goes). A
  /// tree holds most hunks' images at their expected lines and the other image nowhere: found
  /// so, find() needs no line index (hashes of every line, their prefix hashes and the
  /// occurrence index were most of a 7-file patch's time). Exact comparison only: with
  /// --ignore-whitespace every image is searched for. O(file lines + hunk lines).
  void find_absent(const std::vector<Hunk>& hunks) {
    absent_.assign(hunks.size(), {});
    if (base_mode_ != TextMode::kExact || n_ == 0 || hunks.empty()) return;
    // The queries: each image line's fingerprint, and each pair's (the two lines' mixed), in an
    // open-addressing table. A key of the file's lines or pairs equal to a query's marks it
    // found: a collision (fingerprints, or a line's key equal to a pair's) only keeps an image
    // searched for.
    const auto pair_key = [](u64 a, u64 b) { return mix(a + 0x9E3779B97F4A7C15ULL * b); };
    // Per hunk, its pre-image's lines' fingerprints then its post-image's.
    std::vector<std::array<std::vector<u64>, 2>> images(hunks.size());
    std::vector<u64> keys;
    for (std::size_t k = 0; k < hunks.size(); ++k)
      for (const bool post : {false, true}) {
        std::vector<u64>& lines = images[k][post ? 1 : 0];
        for (const HunkLine& l : hunks[k].lines)
          if (l.kind != (post ? LineKind::kRemoved : LineKind::kAdded))
            lines.push_back(line_print(l.text));
        for (std::size_t j = 0; j < lines.size(); ++j) {
          keys.push_back(lines[j]);
          if (j + 1 < lines.size()) keys.push_back(pair_key(lines[j], lines[j + 1]));
        }
      }
    std::size_t cap = 16;
    while (cap < 2 * keys.size()) cap *= 2;
    const std::size_t mask = cap - 1;
    std::vector<u64> table(cap, 0);  // key | 1 (never 0), 0 for a free slot
    std::vector<unsigned char> found(cap, 0);
    const auto slot_of = [&](u64 key) {
      key |= 1;
      std::size_t s = static_cast<std::size_t>(key) & mask;
      while (table[s] != 0 && table[s] != key) s = (s + 1) & mask;
      return s;
    };
    // A bit per key's top 16 bits in front of the table: most of the file's lines and pairs
    // are no query, and are passed over on one load.
    std::vector<u64> bloom(1024, 0);
    const auto bit = [](u64 key) { return key >> 48; };
    for (const u64 key : keys) {
      table[slot_of(key)] = key | 1;
      bloom[bit(key) >> 6] |= u64{1} << (bit(key) & 63);
    }
    const auto mark = [&](u64 key) {
      if ((bloom[bit(key) >> 6] >> (bit(key) & 63) & 1) == 0) return;
      const std::size_t s = slot_of(key);
      if (table[s] != 0) found[s] = 1;
    };
    // The file's fingerprints are computed here, not kept: 8 bytes a line of fresh pages
    // (12 page faults for a 7-file patch's 6,265 lines) cost more than computing them again
    // when a series matches the file once more.
    u64 previous = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const u64 print = line_print(file_.line(i));
      mark(print);
      if (i > 0) mark(pair_key(previous, print));
      previous = print;
    }
    const auto is_found = [&](u64 key) { return found[slot_of(key)] != 0; };
    for (std::size_t k = 0; k < hunks.size(); ++k)
      for (const bool post : {false, true}) {
        const std::vector<u64>& lines = images[k][post ? 1 : 0];
        ImageAbsence& a = absent_[k][post ? 1 : 0];
        for (std::size_t j = 0; j < lines.size(); ++j) {
          if (!is_found(lines[j])) a.lines.push_back(static_cast<std::uint32_t>(j));
          if (j + 1 < lines.size() && !is_found(pair_key(lines[j], lines[j + 1])))
            a.pairs.push_back(static_cast<std::uint32_t>(j));
        }
      }
  }

  /// What find_absent() found for hunk `k`'s post-image (`post`) or pre-image.
  const ImageAbsence* absence(std::size_t k, bool post) const {
    return k < absent_.size() ? &absent_[k][post ? 1 : 0] : nullptr;
  }

  /// A place an image stands at: 0-based first line, and which image.
  struct Place {
    std::size_t pos = 0;
    bool post = false;
  };

  /// Hunks of one file patch with the same lines can only be told apart by their order (a
  /// change repeated in several copies of a function, or a reformatting): when the file holds
  /// exactly as many places of their images (the post-image, or the pre-image away from every
  /// post-image place) as there are such hunks, the k-th of them gets the k-th place. Nearest-
  /// first search would instead slide a hunk onto its neighbour's copy when its own place holds
  /// the other image. std::nullopt for the other hunks.
  std::vector<std::optional<Place>> identical_hunks(const std::vector<Hunk>& hunks) {
    std::vector<std::optional<Place>> out(hunks.size());
    if (hunks.size() < 2) return out;  // no group: no key of a hunk's lines to build
    std::map<std::vector<std::pair<char, std::string_view>>, std::vector<std::size_t>> groups;
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      std::vector<std::pair<char, std::string_view>> key;
      for (const HunkLine& l : hunks[k].lines) key.emplace_back(static_cast<char>(l.kind), l.text);
      groups[std::move(key)].push_back(k);
    }
    for (const auto& [key, members] : groups) {
      if (members.size() < 2) continue;
      images_.build(hunks[members.front()]);
      if (anchor_of(hunks[members.front()]) != Anchor::kNone) continue;
      pre_text_.build(images_.pre, base_mode_);
      post_text_.build(images_.post, base_mode_);
      const std::size_t limit = 2 * members.size() + 2;
      const std::vector<std::size_t> posts = all_places(post_text_, limit);
      std::vector<Place> places;
      for (const std::size_t p : posts) places.push_back({p, true});
      for (const std::size_t p : all_places(pre_text_, limit)) {
        const bool inside = std::any_of(posts.begin(), posts.end(), [&](std::size_t q) {
          return p < q + post_text_.size() && q < p + pre_text_.size();
        });
        if (!inside) places.push_back({p, false});
      }
      if (places.size() != members.size()) continue;
      std::sort(places.begin(), places.end(),
                [](const Place& a, const Place& b) { return a.pos < b.pos; });
      for (std::size_t i = 0; i < members.size(); ++i) out[members[i]] = places[i];
    }
    return out;
  }

  /// Every start where `img` (built) matches, in order; stops after `limit` of them.
  std::vector<std::size_t> all_places(ImageText& img, std::size_t limit) {
    std::vector<std::size_t> out;
    if (img.size() == 0 || img.size() > n_) return out;
    FileSide fs(file_, cache_, base_mode_);
    Range rarest{nullptr, nullptr};
    std::size_t anchor = 0;
    for (std::size_t k = 0; k < img.size(); ++k) {
      const Range r = fs.occurrences(img.window(k, 1, true, cache_.pow));
      if (r.first == r.second) return out;
      if (rarest.first == nullptr || r.second - r.first < rarest.second - rarest.first) {
        rarest = r;
        anchor = k;
      }
    }
    const u64 target = img.window(0, img.size(), true, cache_.pow);
    if (static_cast<std::size_t>(rarest.second - rarest.first) > 4 * limit + 64 &&
        (fs.window_index(img.size()).built || fs.may_build_index())) {
      WindowIndex& wi = fs.window_index(img.size());
      if (!wi.built) fs.build_window_index(wi, img.size());
      rarest = fs.windows_with(wi, img.size(), target);
      anchor = 0;
    }
    for (const std::size_t* e = rarest.first; e != rarest.second && out.size() < limit; ++e) {
      if (*e < anchor) continue;
      const std::size_t pos = *e - anchor;
      if (pos + img.size() > n_ || fs.window(pos, img.size()) != target) continue;
      if (image_at(file_, base_mode_, img, 0, img.size(), pos, true)) out.push_back(pos);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  /// The match of the current hunk (images_ built) at `place`.
  HunkMatch at_place(const Hunk& hunk, const Place& place) {
    HunkMatch m;
    m.status = place.post ? HunkStatus::kApplied : HunkStatus::kApplicable;
    m.kind = MatchKind::kExact;
    m.line = place.pos + 1;
    m.offset = static_cast<std::int64_t>(place.pos) -
               header_base(place.post ? hunk.new_start : hunk.old_start, false);
    match_begin_ = place.pos;
    match_end_ = place.pos + (place.post ? images_.post.size() : images_.pre.size());
    match_top_ = match_bottom_ = 0;
    return m;
  }

  static bool found(const HunkMatch& m) {
    return m.status == HunkStatus::kApplied || m.status == HunkStatus::kApplicable;
  }

  /// Where each image of the current hunk may match (see match_hunks(), "Anchors").
  Anchor anchor_of(const Hunk& hunk) const {
    if (!images_.changes) return Anchor::kNone;
    // No context at either edge: `diff -U0` (no context at all) has only its expected line to
    // place it; a hunk with context between its changes is not -U0 and, as `git apply` has it,
    // ends at the end of the file, and starting at line 1 also begins at its start: the whole
    // file (hostile review hr30: a 3-line file's hunk that deletes its last line read applied,
    // also with --strict, where that line still stood).
    if (images_.leading == 0 && images_.trailing == 0) {
      const bool context = std::any_of(hunk.lines.begin(), hunk.lines.end(), [](const HunkLine& l) {
        return l.kind == LineKind::kContext;
      });
      if (!context) return Anchor::kExpected;
      return hunk.old_start <= 1 ? Anchor::kWhole : Anchor::kEnd;
    }
    if (images_.leading == 0) return hunk.old_start <= 1 ? Anchor::kStart : Anchor::kExpected;
    if (images_.trailing == 0) return Anchor::kEnd;
    return Anchor::kNone;
  }

  /// Second pass over the hunks neither image of which matched: the drift search, with the
  /// offset of the nearest found hunk and the spans other hunks hold.
  void drift_pass(const std::vector<Hunk>& hunks, std::vector<HunkMatch>& out,
                  std::vector<std::optional<Span>>& spans) {
    // Each hunk on its own, against the spans exact and fuzz matches hold.
    std::vector<std::optional<DriftResult>> drift(hunks.size());
    const Neighbours around(spans, out, n_);
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      if (out[k].status != HunkStatus::kConflict) continue;
      images_.build(hunks[k]);
      // A hunk without context (`diff -U0`) has only its expected line: decided by match_one.
      // One with context between its changes but none at its edges, anchored to the file's end
      // (or whole) as `git apply` anchors it, is searched for as any other when not found
      // there: a line appended after a fix at line 1 moves no line of it (hostile review hr31).
      if (images_.leading == 0 && images_.trailing == 0 &&
          anchor_of(hunks[k]) == Anchor::kExpected)
        continue;
      drift[k] = drift_one(hunks[k], k, around, std::nullopt);
      if (images_.leading == 0 && images_.trailing == 0) edge_removed_lines(*drift[k]);
      // The post-image stands at the end of a file that lacks its final newline, but for that
      // newline: the drift search (the last line's newline compared) read its lines as
      // nowhere; not absent, unknown (hostile review hr32).
      if (drift[k]->presence == Presence::kAbsent && last_no_newline_ && post_at_end_but_for_newline()) {
        drift[k]->presence = Presence::kUnknown;
        drift[k]->why = "final-newline-differs";
        drift[k]->places.clear();
      }
    }
    // Two hunks whose changes were found at the same place: neither is decided by it (a sweep
    // over the places in line order).
    std::vector<std::size_t> present;
    for (std::size_t k = 0; k < hunks.size(); ++k)
      if (drift[k] && drift[k]->presence == Presence::kPresent) present.push_back(k);
    std::sort(present.begin(), present.end(),
              [&](std::size_t a, std::size_t b) { return drift[a]->pos < drift[b]->pos; });
    std::vector<bool> collided(hunks.size(), false);
    std::vector<std::size_t> partner(hunks.size(), 0);
    std::size_t reach_end = 0, reach_k = 0;
    for (std::size_t i = 0; i < present.size(); ++i) {
      const DriftResult& d = *drift[present[i]];
      if (i > 0 && (d.pos < reach_end || d.pos == drift[reach_k]->pos)) {
        collided[present[i]] = collided[reach_k] = true;
        partner[present[i]] = reach_k;
        partner[reach_k] = present[i];
      }
      if (i == 0 || d.pos + d.count > reach_end) {
        reach_end = d.pos + d.count;
        reach_k = present[i];
      }
    }
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      if (!collided[k]) continue;
      const std::size_t a = drift[k]->pos, b = drift[partner[k]]->pos;
      DriftResult& d = *drift[k];
      d.presence = Presence::kUnknown;
      d.why = "ambiguous";
      d.places = a == b ? std::vector<std::size_t>{a}
                        : std::vector<std::size_t>{std::min(a, b), std::max(a, b)};
    }
    for (std::size_t k = 0; k < hunks.size(); ++k)
      if (drift[k]) record(hunks[k], k, *drift[k], out, spans);
    // Hunks that add the same block, each ambiguous among the same places, as many as they
    // are: hunk order tells which is which (a fix repeated in several copies of a function).
    std::map<std::string, std::vector<std::size_t>> by_block;
    for (std::size_t k = 0; k < hunks.size(); ++k)
      if (drift[k] && drift[k]->why == "ambiguous") by_block[changed_block(hunks[k])].push_back(k);
    for (const auto& [block, group] : by_block) {
      std::vector<std::size_t> places = drift[group.front()]->places;
      std::sort(places.begin(), places.end());
      bool same = group.size() == places.size() && group.size() > 1;
      for (const std::size_t j : group) {
        std::vector<std::size_t> other = drift[j]->places;
        std::sort(other.begin(), other.end());
        same = same && other == places;
      }
      if (!same) continue;
      for (std::size_t g = 0; g < group.size(); ++g) {
        images_.build(hunks[group[g]]);
        const Neighbours now(spans, out, n_);
        const DriftResult d = drift_one(hunks[group[g]], group[g], now, places[g]);
        if (d.presence == Presence::kPresent) record(hunks[group[g]], group[g], d, out, spans);
      }
    }
    // Hunks whose changed lines are all blank or trivial (an `#endif` replacing a comment),
    // placed by a hunk found before or after them (find_trivial()); in hunk order, each with
    // the ones decided before it.
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      if (!drift[k] || drift[k]->why != "trivial-lines") continue;
      bool neighbour = false;
      for (std::size_t j = 0; j < hunks.size() && !neighbour; ++j) neighbour = j != k && spans[j];
      if (!neighbour) continue;
      images_.build(hunks[k]);
      const Neighbours now(spans, out, n_);
      const DriftQuery q = query_for(hunks[k], k, now, std::nullopt);
      const DriftResult d = find_trivial(file_, cache_, base_mode_, images_, q);
      if (d.presence == Presence::kPresent) record(hunks[k], k, d, out, spans);
    }
  }

  /// Whether the current hunk's post-image (images_ built) ends at the file's last line when
  /// the final newline is not compared, and only then.
  bool post_at_end_but_for_newline() {
    post_text_.build(images_.post, base_mode_);
    return post_text_.size() != 0 &&
           try_image(base_mode_, post_text_, 0, 0, 0, 0, false, Anchor::kEnd).has_value() &&
           !try_image(base_mode_, post_text_, 0, 0, 0, 0, true, Anchor::kEnd).has_value();
  }

  /// A hunk without context at its edges (images_ built for it), found by the drift search:
  /// no context ties its edges, so a line it removes (and does not add back) standing within
  /// kDriftSlack lines of the block found, above or below it, is the old code kept beside the
  /// new, not the fix (hostile reviews hr30, hr32: a 3-line file's hunk that deletes its last
  /// line with that line still there; the removed cleanup call left above the block, the old
  /// value assigned again below it). A line that says little (informative_line()) counts only
  /// right beside the block. Both stand: unknown, "removed-lines-present".
  void edge_removed_lines(DriftResult& d) {
    if (d.presence != Presence::kPresent) return;
    pre_text_.build(images_.pre, base_mode_);
    post_text_.build(images_.post, base_mode_);
    std::unordered_set<std::string_view> kept;
    for (std::size_t j = 0; j < post_text_.size(); ++j) kept.insert(post_text_.text(j));
    std::vector<std::size_t> removed;  // pre-image lines the hunk removes and does not add back
    for (std::size_t j = 0; j < images_.pre.size(); ++j)
      if (images_.pre[j]->kind == LineKind::kRemoved && kept.count(pre_text_.text(j)) == 0)
        removed.push_back(j);
    const std::size_t after = d.pos + d.count;
    const auto old_at = [&](std::size_t i) {
      const bool beside = i + 1 == d.pos || i == after;
      for (const std::size_t j : removed)
        if ((beside || informative_line(images_.pre[j]->text)) &&
            line_equals(file_.line(i), pre_text_.text(j), base_mode_))
          return true;
      return false;
    };
    std::optional<std::size_t> old_line;
    for (std::size_t k = 1; k <= kDriftSlack && !old_line; ++k) {
      if (d.pos >= k && old_at(d.pos - k)) old_line = d.pos - k;
      else if (after + k - 1 < n_ && old_at(after + k - 1)) old_line = after + k - 1;
    }
    if (!old_line) return;
    d.presence = Presence::kUnknown;
    d.why = "removed-lines-present";
    d.places = {std::min(d.pos, *old_line), std::max(d.pos, *old_line)};
  }

  /// An image match outside_section() set aside, with the file lines it held.
  struct Dropped {
    HunkMatch match;
    Span span;
  };

  /// The spans of the found hunks, sorted (they are disjoint).
  static std::vector<Span> sorted_spans(const std::vector<std::optional<Span>>& spans) {
    std::vector<Span> out;
    for (const std::optional<Span>& s : spans)
      if (s) out.push_back(*s);
    std::sort(out.begin(), out.end());
    return out;
  }

  /// True when `span` overlaps one of `sorted` (disjoint, sorted): O(log n).
  static bool overlaps(const std::vector<Span>& sorted, const Span& span) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), span.second,
                               [](const Span& s, std::size_t end) { return s.first < end; });
    return it != sorted.begin() && std::prev(it)->second > span.first;
  }

  /// An image found away from where its header puts it, under another function than the one
  /// the hunk names (which the file has), is not where the hunk belongs: the match is dropped
  /// (its span freed) so that the drift search looks for the change under the right function.
  /// Returns, per hunk, such a dropped match (nullopt for the others).
  std::vector<std::optional<Dropped>> outside_section(const std::vector<Hunk>& hunks,
                                                      std::vector<HunkMatch>& out,
                                                      std::vector<std::optional<Span>>& spans,
                                                      const std::vector<std::int64_t>& running) {
    std::vector<std::optional<Dropped>> dropped(hunks.size());
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      HunkMatch& m = out[k];
      if (m.kind != MatchKind::kExact && m.kind != MatchKind::kFuzz) continue;
      if (m.offset == running[k] || hunks[k].section.empty()) continue;
      images_.build(hunks[k]);
      if (images_.leading == 0 && images_.trailing == 0) continue;
      if (under_section(file_, images_.section, m.line - 1, images_.leading)) continue;
      // The match holds the definition line the change is in (the hunk's own, in its leading
      // context): the section, the line above the hunk, names the function before that one,
      // and functions added between them since moved it away (a real case: a default changed
      // under `def apply_liger_kernel_to_gemma(` whose section names mixtral, 12 functions up
      // at a later head; the section sent the hunk to mixtral's like line: a false `applied`).
      if (const std::optional<std::size_t> own = own_definition(images_);
          own && *own >= m.dropped_top)
        continue;
      // Nor does a section the hunk's own lines leave (a decorator changed between two test
      // functions, the section naming the one before, now hundreds of lines up).
      if (leaves_section(images_)) continue;
      if (!section_in_file(file_, images_.section)) {
        // The function the hunk names is nowhere in the file. A pure deletion's post-image is
        // only its context meeting: far from where the hunk belongs, under another function,
        // that proves nothing of the deletion (a real case: an import removed from a function
        // that a file 25 commits older does not have, its context standing in another model's
        // function 1679 lines away). Other matches keep their place.
        const std::int64_t distance = std::abs(m.offset - running[k]);
        if (m.status != HunkStatus::kApplied || hunks[k].added() != 0 ||
            distance <= static_cast<std::int64_t>(hunks[k].lines.size()))
          continue;
        HunkMatch far;
        far.status = HunkStatus::kUnknown;
        far.presence = Presence::kUnknown;
        far.presence_reason = "found-elsewhere";
        far.places = {m.line};
        m = std::move(far);
        spans[k].reset();
        continue;
      }
      // The code the hunk changes moved out of the named function with the fix in it (an
      // extract-function refactor, or argument parsing moved into a parser builder): the post-
      // image stands once, exactly, and nothing of the pre-image is left anywhere.
      if (moved_out_of_section(hunks[k], m, sorted_spans(spans))) continue;
      // Or the named function is now a wrapper that hands its work to the function the match
      // is in (FlashInfer: get_trtllm_moe_sm100_module() calls _get_trtllm_moe_sm100_module_
      // _impl(), which holds its former body; #3708's deletion and five hunks of three other
      // commits read conflict, "found-elsewhere", where git apply -R and --strict find them).
      if (delegated_out_of_section(hunks[k], m)) continue;
      dropped[k] = Dropped{std::move(m), *spans[k]};
      m = HunkMatch{};
      spans[k].reset();
    }
    return dropped;
  }

  /// `s` without leading and trailing white space (a carriage return included).
  static std::string_view trimmed(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
  }

  /// Places where the hunk lines `image` stand in the file as one block, lines compared
  /// trimmed (a looser comparison finds more: the checks below only ever refuse on a find), up
  /// to `limit`.
  std::size_t block_count(const std::vector<const HunkLine*>& image, std::size_t limit) const {
    std::size_t found = 0;
    if (image.empty() || image.size() > n_) return 0;
    const std::string_view first = trimmed(image.front()->text);
    for (std::size_t i = 0; i + image.size() <= n_ && found < limit; ++i) {
      if (trimmed(file_.line(i)) != first) continue;
      std::size_t j = 1;
      while (j < image.size() && trimmed(file_.line(i + j)) == trimmed(image[j]->text)) ++j;
      if (j == image.size()) ++found;
    }
    return found;
  }

  /// Whether hunk `hunk`'s exact post-image match `m` (images_ built for it; `claimed`: the
  /// found hunks' spans, sorted, its own among them), found under
  /// another function than the one its section names, is the fix moved along with its code
  /// rather than a copy of it in a sibling function (which outside_section() sets aside: a
  /// sibling's copy read `applied` while the named function still had the old code). All of:
  /// the match is exact and the hunk adds an informative line; the post-image stands once in
  /// the file; the pre-image stands nowhere, as a block nor drifted (find_other_side(): its
  /// removed block, or a pure addition's context meeting, with half the match's context
  /// around it); and no body of the definitions the section names (section_bodies()) holds an
  /// informative line of the pre-image: the named function no longer has the code, changed or
  /// not. A pure deletion (its post-image only its context meeting) is never taken. O(file
  /// lines x hunk lines) at worst, for the few matches that reach it.
  bool moved_out_of_section(const Hunk& hunk, const HunkMatch& m,
                            const std::vector<Span>& claimed) const {
    if (m.status != HunkStatus::kApplied || m.kind != MatchKind::kExact) return false;
    bool adds = false;
    std::unordered_set<std::string_view> pre;
    for (const HunkLine& l : hunk.lines) {
      if (!informative_line(l.text)) continue;
      if (l.kind == LineKind::kAdded) adds = true;
      if (l.kind != LineKind::kAdded) pre.insert(trimmed(l.text));
    }
    if (!adds) return false;
    if (block_count(images_.post, 2) != 1 || block_count(images_.pre, 1) != 0) return false;
    // The old code anywhere, drifted: the removed block (for a pure addition, where the
    // context meets) with half the context the match has around it, outside the lines the
    // found hunks hold (the match's own edges hold the shadow of a join).
    DriftQuery q;
    q.order_hi = n_;
    q.claimed = &claimed;
    q.expected = static_cast<std::int64_t>(m.line - 1 + images_.leading);
    if (find_other_side(file_, cache_, base_mode_, images_, q, true, m.line - 1 + images_.leading))
      return false;
    return !section_holds(pre);
  }

  /// True when a body of the definitions the current hunk's section names (section_bodies())
  /// holds one of `lines` (trimmed).
  bool section_holds(const std::unordered_set<std::string_view>& lines) const {
    for (const auto& [begin, end] : section_bodies(file_, images_.section))
      for (std::size_t i = begin; i < end; ++i)
        if (lines.count(trimmed(file_.line(i))) != 0) return true;
    return false;
  }

  /// Whether hunk `hunk`'s exact post-image match `m` (images_ built for it), found under
  /// another function than the one its section names, stands where the named function's code
  /// went: the named function calls the one the match is in (section_delegates_to(): a wrapper
  /// left by an extract-function refactor) and holds no informative line of the hunk's
  /// pre-image, its context included (what it still has is not the code the hunk changes);
  /// and the pre-image stands nowhere as a block (trimmed; a third function with the old code
  /// leaves the copy set aside, FalseConflict.PreImageMovedUnderAnotherFunctionIsApplicable). A
  /// pure deletion, whose post-image is only its context meeting, also needs that context to
  /// stand once in the file and its removed lines to stand nowhere as a block (trimmed): the
  /// old code is gone. O(file lines x hunk lines) at worst, for the few matches that reach it.
  bool delegated_out_of_section(const Hunk& hunk, const HunkMatch& m) const {
    if (m.status != HunkStatus::kApplied || m.kind != MatchKind::kExact || m.line == 0)
      return false;
    std::unordered_set<std::string_view> pre;
    std::vector<const HunkLine*> removed;
    bool informative_removed = false;
    for (const HunkLine& l : hunk.lines) {
      if (l.kind == LineKind::kRemoved) {
        removed.push_back(&l);
        informative_removed = informative_removed || informative_line(l.text);
      }
      if (l.kind != LineKind::kAdded && informative_line(l.text)) pre.insert(trimmed(l.text));
    }
    if (!section_delegates_to(file_, images_.section, m.line - 1 + images_.leading)) return false;
    if (block_count(images_.pre, 1) != 0) return false;  // both images stand: not told apart
    if (hunk.added() == 0 &&
        (!informative_removed || block_count(images_.post, 2) != 1 || block_count(removed, 1) != 0))
      return false;
    return !section_holds(pre);
  }

  /// An image found farther from where its hunk belongs than the hunk is long is only as good
  /// as what stands nearer:
  /// when the other side (the old code for an applied hunk, the changed block for an applicable
  /// one) stands nearer the expected line, with some of the hunk's context around it, both do
  /// and the file cannot tell which is the hunk's: unknown ("removed-lines-present").
  ///
  /// An exact post-image away from where the hunk belongs (by the true distance, the hunk's
  /// length or more from the line the hunk before it puts it at) is no better than a strong
  /// run of the hunk's removed lines standing exactly where it belongs, whatever the context
  /// around that run (find_removed_in_place()): a later copy of the fixed code 29 lines up in
  /// the same function read `applied` while the old code stood at the hunk's place, its
  /// context edited since (Liger-Kernel 5057ca8799 hunk 4, the hr21 drift harness).
  void recheck_far_matches(const std::vector<Hunk>& hunks, std::vector<HunkMatch>& out,
                           const std::vector<std::optional<Span>>& spans,
                           const std::vector<std::int64_t>& running,
                           const std::vector<Coords>& coords) {
    const Neighbours around(spans, out, n_);
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      HunkMatch& m = out[k];
      if (m.kind != MatchKind::kExact && m.kind != MatchKind::kFuzz) continue;
      const std::int64_t distance = std::abs(m.offset - running[k]);
      if (distance == 0 || !spans[k]) continue;
      images_.build(hunks[k]);
      if (images_.leading == 0 && images_.trailing == 0) continue;
      const bool applied = m.status == HunkStatus::kApplied;
      // Within the hunk's own length of where it belongs, the place itself is the evidence.
      if (distance <= static_cast<std::int64_t>(hunks[k].lines.size())) continue;
      // So is the definition the change is in, when the match holds it and the file defines
      // it once: the other side elsewhere is another function's like code (a real case: a
      // default changed under `def apply_liger_kernel_to_gemma(`, the same line standing in
      // 20 other functions nearer the header's line at a later head).
      if (const std::optional<std::size_t> own = own_definition(images_);
          own && *own >= m.dropped_top &&
          !section_ambiguous(file_, images_.post[*own]->text))
        continue;
      // Every hunk's match is claimed, this one's too (its edges hold the shadow of a join).
      DriftQuery q;
      q.order_hi = n_;
      q.claimed = &around.claimed;
      q.expected = block_base(hunks[k], coords[k] == Coords::kPre) + running[k];
      const std::size_t own = m.line - 1 + images_.leading;
      std::optional<std::size_t> other =
          find_other_side(file_, cache_, base_mode_, images_, q, applied, own);
      if (other && std::abs(static_cast<std::int64_t>(*other) - q.expected) >= distance)
        other.reset();
      if (other && join_is_no_rival(hunks[k], m, *other, q.expected, distance)) other.reset();
      if (!other && applied && coords[k] != Coords::kOwn) {
        const std::int64_t expected_at =
            expected_lines(hunks[k], running[k], coords[k]).second;  // the post-image's
        const std::int64_t away = std::abs(static_cast<std::int64_t>(m.line - 1) - expected_at);
        if (away > static_cast<std::int64_t>(hunks[k].lines.size()))
          other = find_removed_in_place(file_, cache_, base_mode_, images_, q, m.line - 1,
                                        m.line - 1 + images_.post.size());
      }
      if (!other) continue;
      HunkMatch both;
      both.status = HunkStatus::kUnknown;
      both.presence = Presence::kUnknown;
      both.presence_reason = "removed-lines-present";
      both.places = applied ? std::vector<std::size_t>{m.line, *other + 1}
                            : std::vector<std::size_t>{*other + 1, m.line};
      m = std::move(both);
    }
  }

  /// Whether the other side find_other_side() found for an exact post-image match `m` of a
  /// pure addition (images_ built for `hunk`), a place where its context meets (a join) `other`
  /// (0-based), says nothing against it. A join holds less of the hunk than the post-image
  /// that stands exactly once: some of its context, where the match has all of it and the
  /// added lines too (an exact join would be the pre-image, found by the exact search). Its
  /// only weight is where it stands: within the hunk's length of `expected`, or at most half
  /// as far from it as the match (`distance`, in lines). Farther than that, it is another
  /// place with like lines (FlashInfer #3739: `head_dim_qk=head_dim,` added to a
  /// determine_attention_backend() call in _plan_impl(); workspace_size() makes the same call
  /// without it, five of its six context lines around, 206 lines before the header's line
  /// where the fix stands 284 after it: unknown, "removed-lines-present", where git apply -R
  /// and --strict find it applied).
  bool join_is_no_rival(const Hunk& hunk, const HunkMatch& m, std::size_t other,
                        std::int64_t expected, std::int64_t distance) const {
    if (m.status != HunkStatus::kApplied || m.kind != MatchKind::kExact) return false;
    if (hunk.removed() != 0 || hunk.added() == 0) return false;
    bool informative = false;
    for (const HunkLine& l : hunk.lines)
      informative = informative || (l.kind == LineKind::kAdded && informative_line(l.text));
    if (!informative || block_count(images_.post, 2) != 1) return false;
    const std::int64_t away = std::abs(static_cast<std::int64_t>(other) - expected);
    return away > static_cast<std::int64_t>(hunk.lines.size()) && 2 * away > distance;
  }

  /// A pre-image match beside which the function the hunk adds already stands, edited since:
  /// the first definition among its new lines standing verbatim within the hunk's length of
  /// the match, with at least two thirds of its new lines (three or more) around it in order
  /// (find_copy()). Applying would define it twice, so the hunk is unknown ("partly-present"),
  /// not applicable (FlashInfer #2670 at a later head: `launch_tinygemm2` stands just above the
  /// match with a template parameter added and its two launch calls changed; its last lines
  /// repeat the hunk's leading context, so the pre-image matched after it and `git apply`
  /// applies the hunk there a second time). A copied sibling with another name (a test for
  /// fp8 added after the one for fp16) defines another name, and is not one; nor is a copy
  /// that starts inside another hunk's match (a rename whose old name the patch defines again,
  /// on the tree before it).
  void recheck_edited_copies(const std::vector<Hunk>& hunks, std::vector<HunkMatch>& out,
                             const std::vector<std::optional<Span>>& spans) {
    for (std::size_t k = 0; k < hunks.size(); ++k) {
      HunkMatch& m = out[k];
      if (m.status != HunkStatus::kApplicable || !spans[k] || hunks[k].added() < 3) continue;
      if (m.kind != MatchKind::kExact && m.kind != MatchKind::kFuzz) continue;
      images_.build(hunks[k]);
      const std::size_t reach = images_.post.size() + kDriftSlack;
      const std::size_t from = spans[k]->first > reach ? spans[k]->first - reach : 0;
      const std::optional<CopyEvidence> copy =
          find_copy(file_, images_, from, spans[k]->second + reach);
      if (!copy || !copy->definition || copy->agree < 3 || 3 * copy->agree < 2 * copy->lines)
        continue;
      // The copy starts inside another hunk's match: that hunk's own lines (FlashInfer
      // 0d25b18340 renames impl_nvfp4() in hunk 1 and adds a wrapper by the old name, with the
      // old body, in hunk 3: on the parent the old function is hunk 1's pre-image). #2670 also
      // renames the old function, but at the later head that hunk matches nowhere.
      bool others = false;
      for (std::size_t j = 0; j < hunks.size() && !others; ++j)
        others = j != k && spans[j] && spans[j]->first <= copy->first &&
                 copy->first < spans[j]->second;
      if (others) continue;
      HunkMatch edited;
      edited.status = HunkStatus::kUnknown;
      edited.presence = Presence::kUnknown;
      edited.presence_reason = "partly-present";
      edited.places = {copy->first + 1, m.line};
      m = std::move(edited);
    }
  }

  /// The post-image lines of `hunk` between its edge context, one per line.
  static std::string changed_block(const Hunk& hunk) {
    std::string out;
    const std::size_t lead = hunk.leading_context(), trail = hunk.trailing_context();
    std::size_t index = 0;
    const std::size_t post_lines = hunk.lines.size() - hunk.removed();
    for (const HunkLine& line : hunk.lines) {
      if (line.kind == LineKind::kRemoved) continue;
      if (index >= lead && index + trail < post_lines) out.append(line.text).push_back('\n');
      ++index;
    }
    return out;
  }

  /// The drift search for hunk k (images_ built for it), with the offset of the nearest found
  /// hunk and the spans the others hold (`around`, see Neighbours). With `only_at`, only that
  /// placement of the changed block is considered.
  DriftResult drift_one(const Hunk& hunk, std::size_t k, const Neighbours& around,
                        std::optional<std::size_t> only_at) {
    return find_drift(file_, cache_, base_mode_, images_, query_for(hunk, k, around, only_at));
  }

  /// The drift query for hunk k (images_ built for it): see drift_one().
  DriftQuery query_for(const Hunk& hunk, std::size_t k, const Neighbours& around,
                       std::optional<std::size_t> only_at) const {
    DriftQuery q;
    q.order_lo = around.lo[k];
    q.order_hi = around.hi[k];
    q.only_at = only_at;
    q.claimed = &around.claimed;
    q.own = around.own[k];
    q.expected = block_base(hunk, around.pre[k]) + around.offset[k];
    return q;
  }

  /// 0-based line where the changed block of `hunk` (images_ built for it) is expected before
  /// any offset: from its "+" header line, or with `pre` (an offset that counts in "-" lines:
  /// the hunk it comes from matched its pre-image, so the lines before this one stand as the
  /// patch found them) from its "-" line. An offset taken from an applicable neighbour added
  /// to the "+" line put the block as many lines off as the hunks before it add (FlashInfer
  /// 0d25b18340: 132 lines).
  std::int64_t block_base(const Hunk& hunk, bool pre = false) const {
    if (pre)
      return header_base(hunk.old_start, images_.pre.empty()) +
             static_cast<std::int64_t>(images_.leading);
    return header_base(hunk.new_start, images_.post.empty()) +
           static_cast<std::int64_t>(images_.leading);
  }

  /// Records the drift search's answer for hunk k in out[k] (and spans[k] when present).
  void record(const Hunk& hunk, std::size_t k, const DriftResult& d, std::vector<HunkMatch>& out,
              std::vector<std::optional<Span>>& spans) {
    images_.build(hunk);
    HunkMatch& m = out[k];
    if (d.presence == Presence::kPresent) {
      HunkMatch drifted;
      drifted.status = HunkStatus::kApplied;
      drifted.kind = MatchKind::kDrifted;
      drifted.line = d.pos + 1;
      drifted.offset = static_cast<std::int64_t>(d.pos) - block_base(hunk);
      drifted.context_agree = d.context_agree;
      drifted.context_lines = d.context_lines;
      drifted.presence_reason = "drifted";
      m = std::move(drifted);
      spans[k] = Span{d.pos, d.pos + d.count};
      return;
    }
    m.presence = d.presence;
    m.presence_reason = d.why;
    m.places.clear();
    for (const std::size_t line : d.places) m.places.push_back(line + 1);
    m.status = d.why == "ambiguous" ? HunkStatus::kUnknown : HunkStatus::kConflict;
  }

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
    const std::size_t hi = n_ - p.count;
    const auto lo64 = static_cast<std::int64_t>(p.lo);
    const auto hi64 = static_cast<std::int64_t>(hi);
    const bool strict = p.strict_eof;
    // A place tried on its own is compared line by line (equal lines hash equally: the hashes
    // would say no more); the file's line index is built for a search only, and not even then
    // for an image holding a line or a pair of lines that stands nowhere in the file.
    const auto at = [&](std::size_t pos) { return verify(mode, img, p, pos); };
    // Anchored images have one place to be: the file's start (after the context fuzz dropped),
    // its end (before it), or the expected line.
    std::optional<std::size_t> only;
    switch (p.anchor) {
      case Anchor::kNone:
        break;
      case Anchor::kStart:
        only = p.first;
        break;
      case Anchor::kEnd:
        if (p.bottom > hi) return std::nullopt;
        only = hi - p.bottom;
        break;
      case Anchor::kExpected:
        if (p.expected < 0) return std::nullopt;
        only = static_cast<std::size_t>(p.expected);
        break;
      case Anchor::kWhole:
        if (p.bottom > hi || hi - p.bottom != p.first) return std::nullopt;
        only = p.first;
        break;
    }
    if (only) {
      if (*only < p.lo || *only > hi || !at(*only)) return std::nullopt;
      return only;
    }
    if (p.expected >= lo64 && p.expected <= hi64 && at(static_cast<std::size_t>(p.expected))) {
      return static_cast<std::size_t>(p.expected);
    }
    if (p.absent != nullptr && p.absent->within(p.first, p.count)) return std::nullopt;
    // Without the end-of-file rule, the window ending at the file's flagged last line hashes
    // differently from the indexes' view of it: try it on its own.
    std::optional<std::size_t> extra;
    if (!strict && last_no_newline_ && at(hi)) extra = hi;
    FileSide fs(file_, cache_, mode);
    const u64 target = img.window(p.first, p.count, strict, cache_.pow);
    auto check = [&](std::size_t pos) {
      const u64 h = strict ? fs.window(pos, p.count) : fs.window_plain(pos, p.count);
      return h == target && verify(mode, img, p, pos);
    };
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
      if (wi.scanned + candidates <= 4 * static_cast<std::uint64_t>(n_) + 64 ||
          !fs.may_build_index()) {
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
  /// empty does not match (it would match anywhere); one fuzz left without any context line
  /// (its changed lines alone, which say nothing of where they belong) matches only at its
  /// expected line, as a hunk without context does, and only where the whole hunk, the
  /// dropped context included, starts at or after `lo`: a header that places it over the
  /// previous hunk's lines (hunks out of order) is a guess that writing the previous hunk
  /// moves.
  std::optional<Found> try_image(TextMode mode, ImageText& img, std::int64_t expected,
                                 std::size_t lo, std::size_t top, std::size_t bottom,
                                 bool strict_eof, Anchor anchor,
                                 const ImageAbsence* absent = nullptr) {
    Probe p;
    if (img.size() != 0) {
      if (top + bottom >= img.size()) return std::nullopt;
      if (top + bottom > 0 && top >= images_.leading && bottom >= images_.trailing &&
          anchor == Anchor::kNone) {
        if (expected < static_cast<std::int64_t>(lo)) return std::nullopt;
        anchor = Anchor::kExpected;
      }
      p.first = top;
      p.count = img.size() - top - bottom;
      p.bottom = bottom;
    }
    p.expected = expected + static_cast<std::int64_t>(p.first);
    p.lo = lo;
    p.strict_eof = strict_eof;
    p.anchor = anchor;
    if (mode == TextMode::kExact) p.absent = absent;
    const std::optional<std::size_t> pos = find(mode, img, p);
    if (!pos) return std::nullopt;
    return Found{*pos, p.count};
  }

  /// 0-based lines where the current hunk's pre- and post-image (images_ built) are expected
  /// (header_base()): the hunk's header line in the coordinates the last found hunk's `offset`
  /// counts from, shifted by it. The lines between two hunks stand in either state of each, so
  /// after an applied hunk the next one is expected at its "+" line shifted, whichever image
  /// is looked for: its "-" line lies the lines the hunks before it add away from it, and a
  /// hunk without context, tied to that one line, would be written there.
  std::pair<std::int64_t, std::int64_t> expected_lines(const Hunk& hunk, std::int64_t offset,
                                                       Coords coords) const {
    const std::int64_t pre_base = header_base(hunk.old_start, images_.pre.empty());
    const std::int64_t post_base = header_base(hunk.new_start, images_.post.empty());
    return {(coords == Coords::kPost ? post_base : pre_base) + offset,
            (coords == Coords::kPre ? pre_base : post_base) + offset};
  }

  /// Hunk `k` of run()'s (images_ built for it) from line `lo` on, the last found hunk at
  /// `offset` in `coords`.
  HunkMatch match_one(const Hunk& hunk, std::size_t k, std::size_t lo, std::int64_t offset,
                      Coords coords) {
    const bool pre_empty = images_.pre.empty();
    const bool post_empty = images_.post.empty();
    const std::int64_t pre_base = header_base(hunk.old_start, pre_empty);
    const std::int64_t post_base = header_base(hunk.new_start, post_empty);
    const auto [pre_expected, post_expected] = expected_lines(hunk, offset, coords);
    pre_text_.build(images_.pre, base_mode_);
    post_text_.build(images_.post, base_mode_);
    const Anchor anchor = anchor_of(hunk);
    if (anchor == Anchor::kExpected)
      return match_at_expected(hunk, k, lo, pre_expected, post_expected);
    // A context line without its newline ("\ No newline at end of file" after a " " line):
    // the newline is no part of the change, and `git apply` matches the hunk whether the file
    // ends with one (an editor added it since) or not, wherever its lines stand (lines added
    // after it since: git does not tie a hunk with trailing context to the file's end).
    // A marked added or removed line stays strict, as git keeps it (hostile review, session
    // 34: a fix inserted above a file's last two lines read conflict, "differs only in the
    // newline at end of file", once the file had gained its newline).
    const HunkLine* const last_pre = images_.pre.empty() ? nullptr : images_.pre.back();
    const bool eof_lenient = last_pre != nullptr &&
                             !images_.post.empty() && images_.post.back() == last_pre &&
                             last_pre->kind == LineKind::kContext && last_pre->no_newline_at_eof;
    const bool strict_eof = !eof_lenient;

    HunkMatch m;
    std::pair<std::size_t, std::size_t> last_drop{SIZE_MAX, SIZE_MAX};
    const std::uint64_t levels = max_level();
    for (std::uint64_t f = 0; f <= levels; ++f) {
      const auto drop = drop_at(f);
      if (drop == last_drop) continue;  // nothing more to drop: same search as before
      last_drop = drop;
      const auto [top, bottom] = drop;
      const std::optional<Found> pre = try_image(base_mode_, pre_text_, pre_expected, lo, top,
                                                 bottom, strict_eof, anchor, absence(k, false));
      const std::optional<Found> post = try_image(base_mode_, post_text_, post_expected, lo, top,
                                                  bottom, strict_eof, anchor, absence(k, true));
      if (!pre && !post) continue;

      bool applied = post.has_value();
      if (pre && post) {
        if (!pre_empty && !post_empty && !options_.prefer &&
            coincident_containment(*pre, *post, top, bottom)) {
          coincident_[k] = Coincident{*pre, *post, top, bottom, pre_base, post_base,
                                      static_cast<unsigned>(f)};
          m.status = HunkStatus::kUnknown;
          m.presence = Presence::kUnknown;
          m.presence_reason = "repeats-context";
          m.places = {pre->pos - top + 1, post->pos - top + 1};
          m.both_images = true;
          return m;
        }
        applied = choose_applied(*pre, *post, pre_expected, post_expected, pre_empty, post_empty,
                                 top);
        m.both_images = !pre_empty && !post_empty;
      }
      const Found& found = applied ? *post : *pre;
      const std::int64_t base = applied ? post_base : pre_base;
      const std::size_t first = (applied ? post_empty : pre_empty) ? 0 : top;
      m.status = applied ? HunkStatus::kApplied : HunkStatus::kApplicable;
      m.kind = f == 0 ? MatchKind::kExact : MatchKind::kFuzz;
      // Like GNU patch, report where the whole hunk starts, fuzz-dropped context included
      // (clamped to line 1 when dropped lines would lie before the file's start).
      m.line = found.pos >= first ? found.pos - first + 1 : 1;
      m.offset = static_cast<std::int64_t>(found.pos) - base - static_cast<std::int64_t>(first);
      m.fuzz = static_cast<unsigned>(f);
      match_begin_ = found.pos;
      match_end_ = found.pos + found.count;
      // An empty image drops nothing: it has no context to drop.
      match_top_ = (applied ? post_empty : pre_empty) ? 0 : top;
      match_bottom_ = (applied ? post_empty : pre_empty) ? 0 : bottom;
      return m;
    }
    if (!options_.explain) return m;
    m.diagnostic = diagnose(pre_expected, post_expected, lo, anchor);
    if (m.diagnostic.empty()) find_closest(m, pre_expected, post_expected);
    return m;
  }

  /// A hunk without context at either edge (`diff -U0`, or a whole small file), or without
  /// leading context away from line 1: nothing but its expected line (expected_lines()) ties
  /// its lines to a place, so it matches only there, or, for an image that is the whole file,
  /// at line 1.
  HunkMatch match_at_expected(const Hunk& hunk, std::size_t k, std::size_t lo,
                              std::int64_t pre_expected, std::int64_t post_expected) {
    const bool pre_empty = images_.pre.empty();
    const bool post_empty = images_.post.empty();
    // As the whole file, an image whose last line lacks its newline ("\ No newline at end of
    // file") is also the file that ends with one (an editor added it): `git apply` matches it
    // so going forward. Not where the newline is the whole change (newline_only_change()).
    const bool strict_eof = last_no_newline_ || newline_only_change(images_);
    auto whole = [&](ImageText& img, std::uint32_t start) {
      return start <= 1 && lo == 0 && img.size() == n_ &&
             image_at(file_, base_mode_, img, 0, n_, 0, strict_eof);
    };
    auto at = [&](ImageText& img, std::int64_t expected) {
      return img.size() != 0 &&
             try_image(base_mode_, img, expected, lo, 0, 0, true, Anchor::kExpected).has_value();
    };
    const bool post_whole = whole(post_text_, hunk.new_start);
    const bool pre_whole = !post_whole && whole(pre_text_, hunk.old_start);
    const bool post_at = !post_whole && !pre_whole && at(post_text_, post_expected);
    const bool pre_at = !post_whole && !pre_whole && at(pre_text_, pre_expected);
    HunkMatch m;
    m.kind = MatchKind::kExact;
    if (post_whole || pre_whole || post_at || pre_at) {
      bool applied = post_whole || post_at;
      if (post_at && pre_at) {  // the same lines, with white space ignored: the tie rule
        const Found pre{static_cast<std::size_t>(pre_expected), pre_text_.size()};
        const Found post{static_cast<std::size_t>(post_expected), post_text_.size()};
        applied = choose_applied(pre, post, pre_expected, post_expected, false, false, 0);
        m.both_images = true;
      }
      const std::int64_t expected =
          applied ? (post_whole ? 0 : post_expected) : (pre_whole ? 0 : pre_expected);
      const std::int64_t base =
          header_base(applied ? hunk.new_start : hunk.old_start, applied ? post_empty : pre_empty);
      m.status = applied ? HunkStatus::kApplied : HunkStatus::kApplicable;
      m.line = static_cast<std::size_t>(expected) + 1;
      m.offset = expected - base;
      match_begin_ = static_cast<std::size_t>(expected);
      match_end_ = match_begin_ + (applied ? post_text_.size() : pre_text_.size());
      match_top_ = match_bottom_ = 0;
      return m;
    }
    // Not where it belongs. Where else do its lines stand?
    m.kind = MatchKind::kNone;
    for (ImageText* img : {&post_text_, &pre_text_}) {
      if (img->size() == 0) continue;
      const bool post = img == &post_text_;
      if (std::optional<Found> f = try_image(base_mode_, *img, post ? post_expected : pre_expected,
                                             0, 0, 0, true, Anchor::kNone, absence(k, post)))
        m.places.push_back(f->pos + 1);
    }
    if (!m.places.empty()) {
      m.status = HunkStatus::kUnknown;
      m.presence_reason = "zero-context-elsewhere";
      return m;
    }
    if (pre_empty && pre_expected < static_cast<std::int64_t>(std::min(lo, n_))) {
      // A pure insertion whose header places it before the end of the previous hunk's match
      // (the patch's hunks out of order: "@@ -1,0" then "@@ -0,0"): its header is all that
      // places it, and any other place is a guess that the next run places elsewhere again.
      // A conflict, as GNU patch refuses it ("misordered hunks! output would be garbled").
      m.presence = Presence::kAbsent;
      m.presence_reason = "not-found";
      if (options_.explain) m.diagnostic = "out-of-order";
      return m;
    }
    if (pre_empty) {  // a pure insertion whose lines are nowhere: insert at the expected line
      m.status = HunkStatus::kApplicable;
      m.kind = MatchKind::kExact;
      m.line = clamp_line(pre_expected, std::min(lo, n_), n_) + 1;
      m.offset = static_cast<std::int64_t>(m.line) - 1 - header_base(hunk.old_start, true);
      match_begin_ = match_end_ = m.line - 1;
      match_top_ = match_bottom_ = 0;
      return m;
    }
    if (post_empty) {  // a pure deletion whose lines are nowhere: deleted, or changed?
      m.status = HunkStatus::kUnknown;
      m.presence_reason = "zero-context-gone";
      return m;
    }
    m.presence = Presence::kAbsent;
    m.presence_reason = "not-found";
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

  /// True when one found image lies inside the other only because the hunk's changed lines
  /// repeat the lines around them (`None,` added to a run of `None,` lines): the shorter image
  /// stands inside the longer one at another place than the hunk puts it, so a file holding
  /// either state holds both images there, and neither tells which state it is in. Where the
  /// hunk puts it: a pure insertion's pre-image is its context, inside the post-image only when
  /// the added lines are at one edge (after the context at the bottom, or before the context at
  /// the top); likewise a pure deletion's post-image. `top`/`bottom`: context lines fuzz
  /// dropped from each image.
  bool coincident_containment(const Found& pre, const Found& post, std::size_t top,
                              std::size_t bottom) const {
    const std::size_t pre_end = pre.pos + pre.count;
    const std::size_t post_end = post.pos + post.count;
    if (pre.pos == post.pos && pre_end == post_end) return false;
    const bool pre_inside = pre.pos >= post.pos && pre_end <= post_end;
    const bool post_inside = post.pos >= pre.pos && post_end <= pre_end;
    if (!pre_inside && !post_inside) return false;
    const Found& inner = pre_inside ? pre : post;
    const Found& outer = pre_inside ? post : pre;
    const std::size_t at = inner.pos - outer.pos;
    const std::size_t lead = images_.leading - std::min(top, images_.leading);
    const std::size_t trail = images_.trailing - std::min(bottom, images_.trailing);
    const bool natural =
        (trail == 0 && at == 0) || (lead == 0 && at == outer.count - inner.count);
    if (natural) return false;
    // A coincidence only when the lines of the longer image around the shorter one all repeat
    // lines of the shorter (the `None,` run): a file in the other state then holds them too.
    // Lines of its own (a class the hunk adds before context that its last lines repeat) are
    // the change itself: the longer image wins as before.
    const std::vector<const HunkLine*>& in_lines = pre_inside ? images_.pre : images_.post;
    const std::vector<const HunkLine*>& out_lines = pre_inside ? images_.post : images_.pre;
    std::unordered_set<std::string_view> inner_text;
    for (std::size_t j = top; j + bottom < in_lines.size(); ++j)
      inner_text.insert(in_lines[j]->text);
    for (std::size_t j = 0; j < outer.count; ++j)
      if ((j < at || j >= at + inner.count) && top + j < out_lines.size() &&
          inner_text.count(out_lines[top + j]->text) == 0)
        return false;
    return true;
  }

  /// Both images of a hunk coincident_containment() left open, as found.
  struct Coincident {
    Found pre, post;
    std::size_t top = 0, bottom = 0;       // context lines fuzz dropped
    std::int64_t pre_base = 0, post_base = 0;  // header_base() of each image
    unsigned fuzz = 0;
  };

  /// Hunks coincident_containment() left unknown take the state of the file's other hunks
  /// when those all agree (all applied, or all applicable; at least one, and none conflicting
  /// or unknown): the file is in that state, and the hunk's lines cannot say otherwise. The
  /// hunk then matches where that image was found, unless another hunk holds those lines.
  void settle_coincident(std::vector<HunkMatch>& out, std::vector<std::optional<Span>>& spans) {
    std::size_t applied = 0, applicable = 0, open = 0;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (coincident_[k] && out[k].status == HunkStatus::kUnknown &&
          out[k].presence_reason == "repeats-context") {
        ++open;
      } else if (out[k].status == HunkStatus::kApplied) {
        ++applied;
      } else if (out[k].status == HunkStatus::kApplicable) {
        ++applicable;
      } else {
        return;
      }
    }
    if (open == 0 || (applied == 0) == (applicable == 0)) return;
    const bool post = applied > 0;
    std::vector<Span> taken = sorted_spans(spans);
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (!coincident_[k] || out[k].status != HunkStatus::kUnknown) continue;
      const Coincident& c = *coincident_[k];
      const Found& f = post ? c.post : c.pre;
      const Span span{f.pos, f.pos + f.count};
      if (overlaps(taken, span)) continue;
      HunkMatch m;
      m.status = post ? HunkStatus::kApplied : HunkStatus::kApplicable;
      m.kind = c.fuzz == 0 ? MatchKind::kExact : MatchKind::kFuzz;
      m.fuzz = c.fuzz;
      m.line = f.pos >= c.top ? f.pos - c.top + 1 : 1;
      m.offset = static_cast<std::int64_t>(f.pos) - (post ? c.post_base : c.pre_base) -
                 static_cast<std::int64_t>(c.top);
      m.both_images = true;
      m.presence_reason = "repeats-context";
      m.image_begin = span.first;
      m.image_end = span.second;
      m.dropped_top = static_cast<std::uint32_t>(c.top);
      m.dropped_bottom = static_cast<std::uint32_t>(c.bottom);
      out[k] = std::move(m);
      spans[k] = span;
      taken.insert(std::upper_bound(taken.begin(), taken.end(), span), span);
    }
  }

  /// The tie rule (documented at match_hunks()). True for applied.
  bool choose_applied(const Found& pre, const Found& post, std::int64_t pre_expected,
                      std::int64_t post_expected, bool pre_empty, bool post_empty,
                      std::size_t top) {
    // An empty image matches anywhere: it is no evidence against the other image.
    if (pre_empty != post_empty) return pre_empty;
    if (pre_empty) return true;
    if (options_.prefer) return *options_.prefer == Image::kPost;  // the blob id said which
    const std::size_t pre_end = pre.pos + pre.count;
    const std::size_t post_end = post.pos + post.count;
    const bool same_span = pre.pos == post.pos && pre_end == post_end;
    if (!same_span) {
      // One occurrence inside the other: the longer image explains the shorter one (a pure
      // insertion's pre-image sits inside its post-image, a pure deletion's the other way).
      if (pre.pos >= post.pos && pre_end <= post_end) return true;
      if (post.pos >= pre.pos && post_end <= pre_end) return false;
      // The hunk's section (the function line git found above it) names one of the two places.
      // (Not when the images hold the definition the change is in: both places have it.)
      const std::optional<std::size_t> own = own_definition(images_);
      if (!images_.section.empty() && !(own && *own >= top) && !leaves_section(images_)) {
        const bool pre_in = under_section(file_, images_.section, pre.pos > top ? pre.pos - top : 0,
                                          images_.leading);
        const bool post_in = under_section(file_, images_.section,
                                           post.pos > top ? post.pos - top : 0, images_.leading);
        if (pre_in != post_in) return post_in;
      }
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
  std::string diagnose(std::int64_t pre_expected, std::int64_t post_expected, std::size_t lo,
                       Anchor anchor) {
    struct Relaxation {
      TextMode mode;
      bool strict_eof;
      bool any_order;  // search before the end of the previous hunk's match too
      Anchor anchor;
      const char* code;
    };
    std::array<Relaxation, 5> tries{};
    std::size_t count = 0;
    if (base_mode_ == TextMode::kExact) {
      tries[count++] = {TextMode::kStripCr, true, false, anchor, "line-ending-mismatch"};
      tries[count++] = {TextMode::kFoldWs, true, false, anchor, "whitespace-only-mismatch"};
    }
    if (last_no_newline_ || images_.any_no_newline) {
      tries[count++] = {base_mode_, false, false, anchor, "final-newline-mismatch"};
    }
    if (anchor == Anchor::kStart)
      tries[count++] = {base_mode_, true, false, Anchor::kNone, "not-at-start-of-file"};
    if (anchor == Anchor::kEnd)
      tries[count++] = {base_mode_, true, false, Anchor::kNone, "not-at-end-of-file"};
    if (anchor == Anchor::kWhole)
      tries[count++] = {base_mode_, true, false, Anchor::kNone, "not-whole-file"};
    if (lo > 0) tries[count++] = {base_mode_, true, true, anchor, "out-of-order"};
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
                        drop.first, drop.second, r.strict_eof, r.anchor)) {
            return r.code;
          }
        }
      }
    }
    return "";
  }

  const FileText& file_;
  MatchCache& cache_;
  /// Per hunk of run(), its pre- and post-image's lines and pairs that stand nowhere in the
  /// file (find_absent()).
  std::vector<std::array<ImageAbsence, 2>> absent_;
  const MatchOptions& options_;
  const std::size_t n_;
  const bool last_no_newline_;
  const TextMode base_mode_;
  HunkImages images_;
  ImageText pre_text_, post_text_, exact_pre_, exact_post_;
  std::size_t match_begin_ = 0;  // first line of the last successful match's compared lines
  std::size_t match_end_ = 0;    // first line after them
  std::size_t match_top_ = 0;    // edge context lines fuzz dropped above them
  std::size_t match_bottom_ = 0;  // and below them
  /// Per hunk of run(), both images when coincident_containment() left it open.
  std::vector<std::optional<Coincident>> coincident_;
};

}  // namespace

namespace {

/// 0-based line where an image starting at 1-based `start` begins; for an empty image, the line
/// it sits before (Matcher::header_base()).
std::int64_t region_of(std::uint32_t start, std::uint32_t lines) {
  if (lines == 0) return start;
  return start == 0 ? 0 : static_cast<std::int64_t>(start) - 1;
}

/// `hunks` with the "+" start of each hunk without leading context recomputed from its "-"
/// start and the line counts of the hunks before it, where the header says otherwise (a
/// hand-edited or garbled header: "@@ -1,0 +1,2 @@" inserts after line 1, so its lines land at
/// line 2, not 1). Such a hunk is tied to a place by its header alone, and every tool that
/// applies it (git apply, GNU patch, apply_hunks()) places it by the "-" start: its post-image
/// is then looked for where it was written, and a tree it was applied to reads applied.
/// std::nullopt when every header agrees (the common case: nothing is copied).
std::optional<std::vector<Hunk>> with_consistent_new_starts(const std::vector<Hunk>& hunks) {
  std::optional<std::vector<Hunk>> out;
  std::int64_t delta = 0;  // lines the hunks before this one add
  for (std::size_t k = 0; k < hunks.size(); ++k) {
    const Hunk& h = hunks[k];
    const std::int64_t post = region_of(h.old_start, h.old_lines) + delta;
    delta += static_cast<std::int64_t>(h.new_lines) - static_cast<std::int64_t>(h.old_lines);
    if (h.leading_context() != 0 || region_of(h.new_start, h.new_lines) == post) continue;
    if (post < 0) continue;  // hunks out of order: no place to derive
    const std::int64_t start = h.new_lines == 0 ? post : post + 1;
    if (start > std::numeric_limits<std::uint32_t>::max()) continue;
    if (!out) out = hunks;
    (*out)[k].new_start = static_cast<std::uint32_t>(start);
  }
  return out;
}

/// Leading blanks and tabs off `s`.
std::string_view indent_off(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// Of `hunks`' sections (the text after a header's second "@@"), those a hunk of `hunks`
/// rewrites: it removes the line the section names (a line starting with it: git cuts a section
/// at 80 bytes) without adding one in its place that starts with it or defines the same name (a
/// signature whose parameters change keeps the function). Indexed like `hunks`.
///
/// Linear in the hunks' lines: sections are looked up by a line's first bytes (kKey of them,
/// or a shorter section's whole length), not compared with every line of every hunk (that was
/// hunks x lines: a quarter of the matching of a 16-hunk file).
std::vector<bool> rewritten_sections(const std::vector<Hunk>& hunks) {
  constexpr std::size_t kKey = 8;
  std::vector<bool> out(hunks.size(), false);
  // Distinct non-empty sections, bucketed by their first kKey bytes (a shorter one: all).
  std::unordered_map<std::string_view, std::vector<std::size_t>> bucket;
  std::vector<std::string_view> sections;
  std::vector<std::size_t> section_of(hunks.size(), SIZE_MAX);
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<bool> short_length(kKey, false);
  for (std::size_t k = 0; k < hunks.size(); ++k) {
    const std::string_view section = hunks[k].section;
    if (section.empty()) continue;
    const auto [it, fresh] = index.emplace(section, sections.size());
    section_of[k] = it->second;
    if (!fresh) continue;
    sections.push_back(section);
    bucket[section.substr(0, kKey)].push_back(it->second);
    if (section.size() < kKey) short_length[section.size()] = true;
  }
  if (sections.empty()) return out;
  // The sections `line` starts with, each once per call (`seen` stamps them).
  std::vector<std::size_t> seen(sections.size(), SIZE_MAX);
  std::size_t stamp = 0;
  std::vector<std::size_t> found;
  const auto starting = [&](std::string_view line) -> const std::vector<std::size_t>& {
    found.clear();
    ++stamp;
    const auto look = [&](std::string_view key) {
      const auto it = bucket.find(key);
      if (it == bucket.end()) return;
      for (const std::size_t i : it->second)
        if (seen[i] != stamp && line.substr(0, sections[i].size()) == sections[i]) {
          seen[i] = stamp;
          found.push_back(i);
        }
    };
    if (line.size() >= kKey) look(line.substr(0, kKey));
    for (std::size_t n = 1; n < kKey && n <= line.size(); ++n)
      if (short_length[n]) look(line.substr(0, n));
    return found;
  };
  std::vector<bool> rewritten(sections.size(), false);
  std::vector<std::size_t> removed, kept;  // per hunk: sections it removes, and keeps
  std::unordered_set<std::string_view> names;
  for (const Hunk& h : hunks) {
    removed.clear();
    for (const HunkLine& l : h.lines)
      if (l.kind == LineKind::kRemoved)
        for (const std::size_t i : starting(indent_off(l.text))) removed.push_back(i);
    if (removed.empty()) continue;
    kept.clear();
    names.clear();
    for (const HunkLine& l : h.lines) {
      if (l.kind != LineKind::kAdded) continue;
      const std::string_view t = indent_off(l.text);
      for (const std::size_t i : starting(t)) kept.push_back(i);
      if (const std::string_view name = detail::definition_name(t); !name.empty())
        names.insert(name);
    }
    for (const std::size_t i : removed) {
      if (std::find(kept.begin(), kept.end(), i) != kept.end()) continue;
      const std::string_view name = detail::definition_name(sections[i]);
      if (!name.empty() && names.count(name) != 0) continue;
      rewritten[i] = true;
    }
  }
  for (std::size_t k = 0; k < hunks.size(); ++k)
    out[k] = section_of[k] != SIZE_MAX && rewritten[section_of[k]];
  return out;
}

/// `hunks` with the section cleared of each hunk whose section line a hunk of `hunks` rewrites
/// (rewritten_sections(): the patch renames the function the section names). Git takes the
/// section from the file before the patch: after it the line is gone, or (a renamed function
/// whose old name a new wrapper keeps) heads other code, so it tells neither image's place (a
/// real case: FlashInfer 0d25b18340 renames blockscaled_contiguous_grouped_gemm_finalize_
/// fusion_nvfp4() and adds a wrapper under the old signature 349 lines down; on the commit's
/// own tree the section sent hunk 5 to the wrapper's like lines over its post-image at the
/// expected line, and the hunks after it out of order: a false conflict). Such hunks are
/// matched as a patch without section text reads them. std::nullopt when none is.
std::optional<std::vector<Hunk>> without_rewritten_sections(const std::vector<Hunk>& hunks) {
  const std::vector<bool> rewritten = rewritten_sections(hunks);
  if (std::find(rewritten.begin(), rewritten.end(), true) == rewritten.end()) return std::nullopt;
  std::optional<std::vector<Hunk>> out = hunks;
  for (std::size_t k = 0; k < hunks.size(); ++k)
    if (rewritten[k]) (*out)[k].section.clear();
  return out;
}

}  // namespace

std::vector<HunkMatch> match_hunks(const FileText& file, const std::vector<Hunk>& hunks,
                                   const MatchOptions& options) {
  Matcher matcher(file, options);
  const std::optional<std::vector<Hunk>> plain = without_rewritten_sections(hunks);
  const std::vector<Hunk>& given = plain ? *plain : hunks;
  const std::optional<std::vector<Hunk>> fixed = with_consistent_new_starts(given);
  std::vector<HunkMatch> out = matcher.run(fixed ? *fixed : given);
  for (std::size_t k = 0; k < out.size() && k < hunks.size(); ++k)
    out[k].inserts_only = hunks[k].removed() == 0;
  return out;
}

}  // namespace sm120check
