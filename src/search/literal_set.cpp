// A set of fixed strings found in one pass over a text (see literal_set.hpp).
#include "literal_set.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <tuple>

#include "sm120check/error.hpp"

namespace sm120check::detail {
namespace {

/// How common a byte is in source code, higher is more common (a rough static ranking: a
/// literal is anchored where the sum over its window is least).
constexpr std::array<std::uint8_t, 256> kCommonness = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    std::uint8_t v = 3;                // other punctuation: # [ ] { } < > & | ! + - * / ...
    if (c >= 0x80 || c < 0x20) v = 1;  // non-ASCII, control bytes
    if (c >= 'A' && c <= 'Z') v = 4;
    if (c >= '0' && c <= '9') v = 4;
    if (c >= 'a' && c <= 'z') v = 6;
    for (char x : std::string_view("etaoinsrl")) v = c == x ? 8 : v;
    for (char x : std::string_view("_(),.=;:\"'")) v = c == x ? 5 : v;
    if (c == '\t' || c == '\r') v = 8;
    if (c == ' ') v = 12;
    t[static_cast<std::size_t>(c)] = v;
  }
  return t;
}();

unsigned commonness(char c) { return kCommonness[static_cast<unsigned char>(c)]; }

/// Offset of the `width` bytes of `text` (at least `width` long) of least commonness, the first
/// of equals.
std::size_t rarest_stretch(std::string_view text, std::size_t width) {
  unsigned sum = 0;
  for (std::size_t j = 0; j < width; ++j) sum += commonness(text[j]);
  unsigned best = sum;
  std::size_t at = 0;
  for (std::size_t j = width; j < text.size(); ++j) {
    sum += commonness(text[j]);
    sum -= commonness(text[j - width]);
    if (sum < best) {
      best = sum;
      at = j - width + 1;
    }
  }
  return at;
}

/// Offset of the rarest byte of `text`, the first of equals.
std::uint32_t rarest_byte(std::string_view text) {
  std::size_t at = 0;
  for (std::size_t j = 1; j < text.size(); ++j)
    if (commonness(text[j]) < commonness(text[at])) at = j;
  return static_cast<std::uint32_t>(at);
}

/// The 8 bytes at `p`, the first in the low byte whatever the machine's byte order.
std::uint64_t load64(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

/// The `size` (at most 8) bytes at `p`, as load64() would give them masked.
std::uint64_t load_short(const char* p, std::size_t size) {
  std::array<char, 8> bytes{};
  std::memcpy(bytes.data(), p, size);
  return load64(bytes.data());
}

}  // namespace

LiteralSet::LiteralSet(const std::vector<Literal>& literals) {
  // Identical literals become one entry reporting each of their ids.
  if (literals.size() >= UINT32_MAX) throw Error("too many literals for a LiteralSet");
  std::vector<std::uint32_t> order(literals.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return literals[a].text < literals[b].text;
  });
  for (std::size_t k = 0; k < order.size();) {
    const std::string_view text = literals[order[k]].text;
    if (text.empty() || text.find('\n') != std::string_view::npos)
      throw Error("a literal of a LiteralSet is empty or holds a line end");
    if (pool_.size() + text.size() > UINT32_MAX)
      throw Error("the literals of a LiteralSet exceed 4 GiB");
    Entry e;
    e.begin = static_cast<std::uint32_t>(pool_.size());
    e.size = static_cast<std::uint32_t>(text.size());
    pool_.append(text);
    e.ids_begin = static_cast<std::uint32_t>(ids_.size());
    for (; k < order.size() && literals[order[k]].text == text; ++k)
      ids_.push_back(literals[order[k]].id);
    e.ids_end = static_cast<std::uint32_t>(ids_.size());
    if (text.size() >= 4) {
      long_.push_back(e);
    } else {
      e.rare = rarest_byte(text);
      short_.push_back(e);
    }
  }
  if (long_.empty()) return;
  // The shortest long literal bounds the anchor length and the stride (L + S - 1 <= m): a
  // longer anchor is rarer in a text, a longer stride looks at fewer positions.
  std::size_t m = SIZE_MAX;
  for (const Entry& e : long_) m = std::min<std::size_t>(m, e.size);
  anchor_length_ = std::clamp<std::size_t>((m + 1) / 2, 4, 8);
  stride_ = std::min(kMaxStride, m - anchor_length_ + 1);
  mask_ = anchor_length_ == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * anchor_length_)) - 1;
  anchors_.reserve(long_.size() * stride_);
  for (std::size_t k = 0; k < long_.size(); ++k) {
    const std::string_view text(pool_.data() + long_[k].begin, long_[k].size);
    const std::size_t from = rarest_stretch(text, anchor_length_ + stride_ - 1);
    for (std::size_t j = from; j < from + stride_; ++j) {
      Anchor a;
      a.window = load_short(text.data() + j, anchor_length_);
      a.hash = hash(a.window);
      a.entry = static_cast<std::uint32_t>(k);
      a.offset = static_cast<std::uint32_t>(j);
      anchors_.push_back(a);
    }
  }
  std::sort(anchors_.begin(), anchors_.end(), [](const Anchor& a, const Anchor& b) {
    return std::tie(a.hash, a.window, a.entry, a.offset) <
           std::tie(b.hash, b.window, b.entry, b.offset);
  });
  for (std::size_t i = 0; i < anchors_.size(); ++i) {
    std::uint8_t& first = first_[anchors_[i].hash];
    if (first == 0) first = static_cast<std::uint8_t>(std::min<std::size_t>(i + 1, 255));
  }
}

void LiteralSet::LineCursor::at(std::size_t pos) {
  if (pos >= begin && pos < end) return;
  const char* base = text.data();
  // text[end] is a "\n" before pos when pos lies past the line last located.
  const std::size_t from = begin <= end && pos > end ? end : 0;
  const void* prev = ::memrchr(base + from, '\n', pos - from);
  begin = prev == nullptr ? 0 : static_cast<std::size_t>(static_cast<const char*>(prev) - base) + 1;
  const void* next = std::memchr(base + pos, '\n', text.size() - pos);
  end = next == nullptr ? text.size()
                        : static_cast<std::size_t>(static_cast<const char*>(next) - base);
}

void LiteralSet::report(const Entry& e, std::size_t line_begin,
                        std::vector<std::pair<std::size_t, std::uint32_t>>& hits) const {
  for (std::uint32_t i = e.ids_begin; i < e.ids_end; ++i) hits.emplace_back(line_begin, ids_[i]);
}

void LiteralSet::scan(std::string_view text, Scratch& scratch,
                      std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                      bool first_line_only) const {
  scan_long(text, scratch, hits, first_line_only);
  for (const Entry& e : short_) scan_short(text, e, hits, first_line_only);
}

void LiteralSet::check(std::string_view text, std::size_t pos, std::uint64_t window,
                       Scratch& scratch, LineCursor& line,
                       std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                       bool first_line_only) const {
  const std::uint32_t h = hash(window);
  const std::uint8_t first = first_[h];
  if (first == 0) return;
  std::size_t k = first - 1u;
  if (first == 255)
    k = static_cast<std::size_t>(
        std::lower_bound(anchors_.begin(), anchors_.end(), h,
                         [](const Anchor& a, std::uint32_t x) { return a.hash < x; }) -
        anchors_.begin());
  for (; k < anchors_.size() && anchors_[k].hash == h; ++k) {
    const Anchor& a = anchors_[k];
    if (a.window != window || pos < a.offset) continue;
    const std::size_t start = pos - a.offset;
    const Entry& e = long_[a.entry];
    // A hit earlier in this line already counts (each (line, literal) once). An occurrence
    // holds its anchor, so later positions find occurrences in this line or later ones.
    if (start < scratch.next[a.entry] || e.size > text.size() - start ||
        std::memcmp(text.data() + start, pool_.data() + e.begin, e.size) != 0)
      continue;
    line.at(start);
    scratch.next[a.entry] = first_line_only ? SIZE_MAX : line.end + 1;
    report(e, line.begin, hits);
  }
}

void LiteralSet::scan_long(std::string_view text, Scratch& scratch,
                           std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                           bool first_line_only) const {
  const std::size_t n = text.size(), step = stride_;
  if (long_.empty() || n < anchor_length_) return;
  scratch.next.assign(long_.size(), 0);
  const char* base = text.data();
  LineCursor line{text};
  std::size_t p = 0;
  // Four sampled positions per step, their table bytes or-ed: one branch, rarely taken.
  for (; p + 3 * step + 8 <= n; p += 4 * step) {
    const std::uint64_t w0 = load64(base + p) & mask_, w1 = load64(base + p + step) & mask_,
                        w2 = load64(base + p + 2 * step) & mask_,
                        w3 = load64(base + p + 3 * step) & mask_;
    if ((first_[hash(w0)] | first_[hash(w1)] | first_[hash(w2)] | first_[hash(w3)]) != 0)
        [[unlikely]] {
      check(text, p, w0, scratch, line, hits, first_line_only);
      check(text, p + step, w1, scratch, line, hits, first_line_only);
      check(text, p + 2 * step, w2, scratch, line, hits, first_line_only);
      check(text, p + 3 * step, w3, scratch, line, hits, first_line_only);
    }
  }
  for (; p + 8 <= n; p += step)
    check(text, p, load64(base + p) & mask_, scratch, line, hits, first_line_only);
  for (; p + anchor_length_ <= n; p += step)
    check(text, p, load_short(base + p, anchor_length_), scratch, line, hits, first_line_only);
}

void LiteralSet::scan_short(std::string_view text, const Entry& e,
                            std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                            bool first_line_only) const {
  const std::size_t n = text.size();
  if (e.size > n) return;
  const char* base = text.data();
  const char* literal = pool_.data() + e.begin;
  const char rare = literal[e.rare];
  const std::size_t last = n - e.size + e.rare;  // the last place of the rarest byte
  LineCursor line{text};
  for (std::size_t at = e.rare; at <= last;) {
    const void* found = std::memchr(base + at, rare, last - at + 1);
    if (found == nullptr) return;
    at = static_cast<std::size_t>(static_cast<const char*>(found) - base);
    const std::size_t start = at - e.rare;
    if (std::memcmp(base + start, literal, e.size) != 0) {
      ++at;
      continue;
    }
    line.at(start);
    report(e, line.begin, hits);
    if (first_line_only) return;
    at = line.end + 1 + e.rare;  // the next line
  }
}

}  // namespace sm120check::detail
