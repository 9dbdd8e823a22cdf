// Marker extraction: the distinctive strings of a patch's added lines and explicit trailers.
#include "sm120check/markers.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../search/literal_set.hpp"

namespace sm120check {
namespace {

constexpr std::size_t kMinSignificant = 6;  // non-blank characters a marker needs
constexpr std::size_t kMinAlnum = 3;        // letters and digits a marker needs
constexpr std::size_t kMaxMarkerBytes = 120;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
// ASCII classes (std::isalnum is a locale call per byte, a tenth of a large hunk's time).
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_word(char c) { return is_alnum(c) || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && (prefix.empty() || s[0] == prefix[0]) &&
         s.compare(0, prefix.size(), prefix) == 0;
}

/// Lines that are code with no information of their own once trailing ":;{}" are gone.
bool is_bare_keyword(std::string_view s) {
  while (!s.empty() && (s.back() == ':' || s.back() == ';' || s.back() == '{' || s.back() == '}' ||
                        is_space(s.back())))
    s.remove_suffix(1);
  static constexpr std::array<std::string_view, 22> kWords = {
      "",      "return",  "else",   "pass",   "break",       "continue", "try",  "finally",
      "end",   "fi",      "done",   "then",   "do",          "default",  "None", "True",
      "False", "else if", "} else", "except", "return None", "raise"};
  static constexpr std::size_t kLongest = [] {
    std::size_t most = 0;
    for (std::string_view w : kWords) most = std::max(most, w.size());
    return most;
  }();
  if (s.size() > kLongest) return false;  // most lines: no comparison
  return std::find(kWords.begin(), kWords.end(), s) != kWords.end();
}

bool is_import(std::string_view s) {
  // Most lines start with none of these prefixes' first bytes: told by one compare each.
  if (s.empty() || std::string_view("if#ure").find(s.front()) == std::string_view::npos)
    return false;
  return starts_with(s, "import ") || (starts_with(s, "from ") && s.find(" import ") != s.npos) ||
         starts_with(s, "#include") || starts_with(s, "using ") || starts_with(s, "#import") ||
         starts_with(s, "require ") || starts_with(s, "extern crate ") || starts_with(s, "use ");
}

/// Cuts `s` to at most kMaxMarkerBytes bytes without splitting a UTF-8 sequence.
std::string_view cut(std::string_view s) {
  if (s.size() <= kMaxMarkerBytes) return s;
  std::size_t n = kMaxMarkerBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return trim(s.substr(0, n));
}

bool significant(std::string_view s) {
  std::size_t visible = 0, alnum = 0;
  for (char c : s) {
    if (!is_space(c)) ++visible;
    if (is_alnum(c)) ++alnum;
    if (visible >= kMinSignificant && alnum >= kMinAlnum) return true;  // most lines: early
  }
  return false;
}

/// Position of a trailing comment ("  # ...", " // ...") in a code line, or npos. Each mark is
/// looked for by its rare byte ('#', '/') with the spaces around it checked there: a search
/// for " # " stopped at every space of the line.
std::size_t trailing_comment(std::string_view s) {
  for (std::string_view mark : {std::string_view(" # "), std::string_view(" // ")}) {
    for (std::size_t at = s.find(mark[1], 1); at != s.npos; at = s.find(mark[1], at + 1))
      if (s.compare(at - 1, mark.size(), mark) == 0) return at;
  }
  return s.npos;
}

}  // namespace

int marker_score(std::string_view marker) {
  // One pass: the longest word, whether a digit occurs, which of "==", "!=", ">=", "<=" occur.
  // A table gives a byte's classes (a word byte: 1, a digit: 2) in one load.
  static constexpr std::array<std::uint8_t, 256> kClass = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
      const char ch = static_cast<char>(c);
      t[static_cast<std::size_t>(c)] =
          static_cast<std::uint8_t>((is_word(ch) ? 1 : 0) | (is_digit(ch) ? 2 : 0));
    }
    return t;
  }();
  int longest = 0, run = 0;
  unsigned classes = 0;  // the classes seen
  for (const char c : marker) {
    const unsigned k = kClass[static_cast<unsigned char>(c)];
    classes |= k;
    run = (run + 1) * static_cast<int>(k & 1);  // 0 after a byte not of a word
    longest = std::max(longest, run);
  }
  unsigned operators = 0;  // a bit per comparison operator found
  for (std::size_t at = marker.find('=', 1); at != marker.npos; at = marker.find('=', at + 1)) {
    const char previous = marker[at - 1];
    if (previous == '=') operators |= 1u;
    if (previous == '!') operators |= 2u;
    if (previous == '>') operators |= 4u;
    if (previous == '<') operators |= 8u;
  }
  const int bonus = ((classes & 2) != 0 ? 4 : 0) + 8 * std::popcount(operators);
  return std::min(longest, 20) + bonus +
         static_cast<int>(std::min<std::size_t>(marker.size(), 60) / 10);
}

namespace {

/// The pre-image of a file patch (its context and removed lines), for "does this text occur in
/// one of its lines": the lines joined (each ended by "\n", so that a text without one never
/// spans two) and a bit per hash of each 4-byte window there. A text of 4 bytes or more one of
/// whose windows has no bit is absent at once (as most new lines are: a text is looked up only
/// when its hunk's turn comes, a few per hunk); a text whose windows all have theirs is looked
/// for with memmem(3), up to a budget of bytes searched (kScansPerByte, kScanAllowance), then
/// through an index built then: every position filed under the hash of its window, a text looked up
/// under its window filed least often, each position there compared in full. Set-up: a few
/// operations per pre-image byte and a bit array of a byte per 2 to 4 windows (the index, 12
/// bytes per window, was most of a 7-file patch's page faults before it was made lazy).
/// (A LiteralSet of the candidates, built per file patch, cost 3 times as much: its set-up
/// outweighs a pre-image of a few kilobytes.)
class PreImage {
 public:
  explicit PreImage(const std::vector<std::string_view>& lines) {
    std::size_t bytes = 0;
    for (std::string_view line : lines) bytes += line.size() + 1;
    text_.reserve(bytes + kWindow);
    for (std::string_view line : lines) {
      text_.append(line);
      text_.push_back('\n');
    }
    budget_ = kComparesPerByte * text_.size();
    if (text_.size() < kWindow) return;
    const std::size_t windows = text_.size() - kWindow + 1;
    if (windows >= UINT32_MAX) return;  // no look-up: every one gives none
    seen_bits_ = 12;  // 2 to 4 bits per window: a window of an absent text has none 3 times in 4
    while (seen_bits_ < 24 && (std::size_t{1} << seen_bits_) < 2 * windows) ++seen_bits_;
    seen_.assign((std::size_t{1} << seen_bits_) / 64, 0);
    for (std::size_t i = 0; i < windows; ++i) {
      const std::uint32_t h = hash(text_.data() + i, seen_bits_);
      seen_[h >> 6] |= std::uint64_t{1} << (h & 63);
    }
  }

  /// Whether `s` (without "\n") occurs in one of the lines; std::nullopt once the index's
  /// look-ups have compared more positions than kComparesPerByte per pre-image byte plus
  /// kComparesPerLookup per look-up (a repetitive pre-image, where a window is filed at most
  /// positions): the caller then looks up all its texts at once (occur_in_lines()), so that
  /// time stays linear.
  std::optional<bool> contains(std::string_view s) {
    if (s.empty()) return true;
    if (s.size() > text_.size()) return false;
    if (s.size() < kWindow || seen_.empty()) return std::nullopt;  // (none: no marker is so short)
    for (std::size_t j = 0; j + kWindow <= s.size(); ++j) {
      const std::uint32_t h = hash(s.data() + j, seen_bits_);
      if ((seen_[h >> 6] >> (h & 63) & 1) == 0) return false;
    }
    if (table_.empty()) {
      if (scanned_ + text_.size() <= kScansPerByte * text_.size() + kScanAllowance) {
        const void* at = ::memmem(text_.data(), text_.size(), s.data(), s.size());
        // What it searched: up to the text found (most found texts stand near the top).
        scanned_ +=
            at == nullptr
                ? text_.size()
                : static_cast<std::size_t>(static_cast<const char*>(at) - text_.data()) + s.size();
        return at != nullptr;
      }
      build_index();
    }
    budget_ += kComparesPerLookup;
    std::size_t best = 0;
    std::uint32_t fewest = UINT32_MAX;
    for (std::size_t j = 0; j + kWindow <= s.size(); ++j) {
      const std::uint32_t n = table_[hash(s.data() + j, bits_)].count;
      if (n == 0) return false;
      if (n < fewest) {
        fewest = n;
        best = j;
      }
    }
    for (std::uint32_t at = table_[hash(s.data() + best, bits_)].head; at != kNone;
         at = next_[at]) {
      if (budget_-- == 0) return std::nullopt;
      if (at < best || at - best + s.size() > text_.size()) continue;
      if (std::memcmp(text_.data() + (at - best), s.data(), s.size()) == 0) return true;
    }
    return false;
  }

 private:
  static constexpr std::size_t kWindow = 4;
  static constexpr std::uint32_t kNone = UINT32_MAX;
  static constexpr std::size_t kComparesPerByte = 4;
  static constexpr std::size_t kComparesPerLookup = 16;
  // memmem() searches up to kScansPerByte times the pre-image plus kScanAllowance bytes before
  // the index is built. glibc's memmem went through 128 KiB of CUDA source in 6-10 us on the
  // 2-core development VM; the index of a 10 KB pre-image is 104 KB of fresh pages (26 page
  // faults: 2 us each on the H200 host, 10 us on that VM; bench/README.md).
  static constexpr std::size_t kScansPerByte = 8;
  static constexpr std::size_t kScanAllowance = 128 * 1024;

  static std::uint32_t hash(const char* p, unsigned bits) {
    std::uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return static_cast<std::uint32_t>((w * 0x9E3779B1u) >> (32 - bits));
  }

  /// The index (table_, next_): at most 2 windows per entry on average.
  void build_index() {
    const std::size_t windows = text_.size() - kWindow + 1;
    bits_ = 8;
    while (bits_ < 24 && (std::size_t{2} << bits_) < windows) ++bits_;
    table_.assign(std::size_t{1} << bits_, Bucket{});
    next_ = std::make_unique_for_overwrite<std::uint32_t[]>(windows);  // each one set below
    for (std::size_t i = 0; i < windows; ++i) {
      Bucket& b = table_[hash(text_.data() + i, bits_)];
      next_[i] = b.head;
      b.head = static_cast<std::uint32_t>(i);
      ++b.count;
    }
  }

  std::string text_;
  std::size_t budget_ = 0;   ///< positions the index's look-ups may still compare
  std::size_t scanned_ = 0;  ///< bytes memmem() has searched
  unsigned seen_bits_ = 0;
  std::vector<std::uint64_t> seen_;  ///< a bit per window hash (of seen_bits_ bits)
  unsigned bits_ = 8;
  struct Bucket {
    std::uint32_t head = kNone;  ///< the last position filed here (kNone: none)
    std::uint32_t count = 0;     ///< the positions filed here
  };
  std::vector<Bucket> table_;              ///< per hash (empty until build_index())
  std::unique_ptr<std::uint32_t[]> next_;  ///< per position: the one filed before it, or kNone
};

/// A possible marker of one hunk line, with its score (see marker_score()).
struct Candidate {
  std::string_view text;  ///< a part of the hunk line (see marker_view())
  int score = 0;
};

/// The markers of the lines of `hunk` that are added (`added`) or not, most distinctive first
/// (equal scores in line order; a text that repeats is there more than once).
std::vector<Candidate> candidates_of(const Hunk& hunk, bool added) {
  // Duplicates stay (equal texts score equally, so the stable sort keeps them in line order
  // behind the first): choose() takes each text once. No hash set over a hunk of 40k lines.
  std::vector<Candidate> found;
  for (const HunkLine& l : hunk.lines) {
    bool wanted = added ? l.kind == LineKind::kAdded : l.kind != LineKind::kAdded;
    if (!wanted) continue;
    const std::string_view m = marker_view(l.text);
    if (m.empty()) continue;
    found.push_back({m, marker_score(m)});
  }
  // Highest score first, equal scores in line order: a counting sort (scores are small), linear
  // in a hunk of 40k added lines.
  int top = 0;
  for (const Candidate& c : found) top = std::max(top, c.score);
  std::vector<std::size_t> first(static_cast<std::size_t>(top) + 2, 0);  // by top - score
  for (const Candidate& c : found) ++first[static_cast<std::size_t>(top - c.score) + 1];
  for (std::size_t k = 1; k < first.size(); ++k) first[k] += first[k - 1];
  std::vector<Candidate> sorted(found.size());
  for (const Candidate& c : found) sorted[first[static_cast<std::size_t>(top - c.score)]++] = c;
  return sorted;
}

/// Per hunk, the positions in `hunks[h]` of the markers it gives: up to kMaxMarkersPerHunk
/// candidates in order, skipping those in the pre-image (`in_pre_image(text)`), those in
/// `taken` and those chosen before. A candidate is looked up only when its turn comes (most
/// hunks stop at their first few). std::nullopt when a lookup gave none.
template <class InPreImage>
std::optional<std::vector<std::vector<std::size_t>>> choose(
    const std::vector<std::vector<Candidate>>& hunks, InPreImage&& in_pre_image,
    const std::unordered_set<std::string_view>& taken) {
  std::vector<std::vector<std::size_t>> chosen(hunks.size());
  std::unordered_set<std::string_view> mine;
  for (std::size_t h = 0; h < hunks.size(); ++h) {
    for (std::size_t i = 0; i < hunks[h].size() && chosen[h].size() < kMaxMarkersPerHunk; ++i) {
      const Candidate& c = hunks[h][i];
      const std::optional<bool> in = in_pre_image(c.text);
      if (!in) return std::nullopt;
      if (*in || taken.count(c.text) != 0 || !mine.insert(c.text).second) continue;
      chosen[h].push_back(i);
    }
  }
  return chosen;
}

/// For each of `patterns` (none empty, none holding "\n"): whether it occurs in one of `lines`.
/// The lines are joined, each ended by "\n" (a pattern then never spans two), and searched
/// with the LiteralSet of src/search, 4096 patterns at a time. Time: O(pattern bytes + line
/// bytes x (1 + patterns / 4096)). PreImage's fallback.
std::vector<bool> occur_in_lines(const std::vector<std::string_view>& patterns,
                                 const std::vector<std::string_view>& lines) {
  constexpr std::size_t kMaxLiteralsPerSet = 4096;
  std::vector<bool> found(patterns.size(), false);
  if (lines.empty()) return found;
  std::string text;
  for (std::string_view line : lines) {
    text.append(line);
    text.push_back('\n');
  }
  detail::LiteralSet::Scratch scratch;
  std::vector<std::pair<std::size_t, std::uint32_t>> hits;
  std::vector<detail::Literal> batch;
  for (std::size_t begin = 0; begin < patterns.size(); begin += kMaxLiteralsPerSet) {
    const std::size_t end = std::min(patterns.size(), begin + kMaxLiteralsPerSet);
    batch.clear();
    for (std::size_t i = begin; i < end; ++i)
      batch.push_back({patterns[i], static_cast<std::uint32_t>(i - begin)});
    const detail::LiteralSet set(batch);
    hits.clear();
    set.scan(text, scratch, hits, /*first_line_only=*/true);
    for (const auto& hit : hits) found[begin + hit.second] = true;
  }
  return found;
}

std::string file_of(const FilePatch& fp, unsigned strip) {
  const std::string& p = fp.new_path == "/dev/null" ? fp.old_path : fp.new_path;
  return strip_path(p, strip).value_or(p);
}

/// Case-insensitive "Key:" at the start of `line`; returns the trimmed value or nullopt.
std::optional<std::string_view> trailer_value(std::string_view line, std::string_view key) {
  if (line.size() < key.size()) return std::nullopt;
  for (std::size_t i = 0; i < key.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(key[i])))
      return std::nullopt;
  return trim(line.substr(key.size()));
}

}  // namespace

std::string_view to_string(Marker::Origin origin) {
  switch (origin) {
    case Marker::Origin::kHunk:
      return "hunk";
    case Marker::Origin::kTrailer:
      return "trailer";
    case Marker::Origin::kOption:
      return "option";
    case Marker::Origin::kContext:
      return "context";
  }
  return "option";
}

std::string marker_of_line(std::string_view line) { return std::string(marker_view(line)); }

std::string_view marker_view(std::string_view line) {
  std::string_view s = trim(line);
  if (s.empty() || is_import(s) || is_bare_keyword(s)) return {};
  // The prefixes below are told apart by their first bytes first ('#', '/', '*', '-'): most
  // lines start with none of them.
  const char first = s.front();
  const bool preprocessor = first == '#' && (starts_with(s, "#define") || starts_with(s, "#if") ||
                                             starts_with(s, "#elif") || starts_with(s, "#pragma"));
  if (!preprocessor && (first == '#' || ((first == '/' || first == '*' || first == '-') &&
                                         (starts_with(s, "//") || starts_with(s, "/*") ||
                                          starts_with(s, "* ") || starts_with(s, "--"))))) {
    while (!s.empty() && (s.front() == '#' || s.front() == '/' || s.front() == '*' ||
                          s.front() == '-' || is_space(s.front())))
      s.remove_prefix(1);
    while (!s.empty() && (s.back() == '/' || s.back() == '*' || is_space(s.back())))
      s.remove_suffix(1);
  } else if (std::size_t c = trailing_comment(s); c != s.npos && !preprocessor) {
    std::string_view comment = trim(s.substr(c + (s[c] == '#' ? 1 : 2)));
    if (significant(comment)) s = comment;
  } else {
    static constexpr std::string_view kHeads[] = {"if ", "elif ", "while ", "} else if ",
                                                  "else if "};
    for (std::string_view kw : kHeads) {
      if (first != kw.front() || !starts_with(s, kw)) continue;
      s = trim(s.substr(kw.size()));
      while (!s.empty() && (s.back() == ':' || s.back() == '{' || is_space(s.back())))
        s.remove_suffix(1);
      if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = trim(s.substr(1, s.size() - 2));
      break;
    }
  }
  if (!significant(s)) return {};
  return cut(s);
}

std::vector<Marker> extract_markers(const Patch& patch, unsigned strip,
                                    std::size_t max_hunk_markers) {
  std::vector<Marker> out;
  // The texts chosen so far (fixed-string trailers, then hunk markers): views into the patch.
  std::unordered_set<std::string_view> taken;
  std::string_view msg = patch.message;
  while (!msg.empty()) {
    std::size_t nl = msg.find('\n');
    std::string_view line = trim(msg.substr(0, nl));
    msg.remove_prefix(nl == msg.npos ? msg.size() : nl + 1);
    if (auto v = trailer_value(line, kMarkerRegexTrailer); v && !v->empty()) {
      out.push_back({std::string(*v), true, Marker::Origin::kTrailer, {}});
    } else if (auto f = trailer_value(line, kMarkerTrailer); f && !f->empty()) {
      out.push_back({std::string(*f), false, Marker::Origin::kTrailer, {}});
      taken.insert(*f);
    }
  }
  const std::size_t trailers = out.size();
  for (const FilePatch& fp : patch.files) {
    if (out.size() - trailers >= max_hunk_markers) break;
    std::vector<std::vector<Candidate>> hunks;
    hunks.reserve(fp.hunks.size());
    for (const Hunk& h : fp.hunks) hunks.push_back(candidates_of(h, true));
    std::vector<std::string_view> lines;
    for (const Hunk& h : fp.hunks)
      for (const HunkLine& l : h.lines)
        if (l.kind != LineKind::kAdded) lines.push_back(l.text);
    PreImage pre_image(lines);
    auto chosen = choose(
        hunks, [&](std::string_view t) { return pre_image.contains(t); }, taken);
    if (!chosen) {
      // A repetitive pre-image: every candidate of the file patch looked up at once.
      std::vector<std::string_view> patterns;
      std::unordered_map<std::string_view, bool> in;
      for (const std::vector<Candidate>& hunk : hunks)
        for (const Candidate& c : hunk)
          if (in.emplace(c.text, false).second) patterns.push_back(c.text);
      const std::vector<bool> found = occur_in_lines(patterns, lines);
      for (std::size_t i = 0; i < patterns.size(); ++i) in[patterns[i]] = found[i];
      chosen = choose(
          hunks, [&](std::string_view t) { return std::optional<bool>(in.at(t)); }, taken);
    }
    std::string file = file_of(fp, strip);
    for (std::size_t h = 0; h < hunks.size(); ++h)
      for (std::size_t i : (*chosen)[h]) {
        taken.insert(hunks[h][i].text);
        out.push_back({std::string(hunks[h][i].text), false, Marker::Origin::kHunk, file});
      }
  }
  return out;
}

std::vector<Marker> context_markers(const FilePatch& file) {
  std::vector<Marker> out;
  std::vector<std::vector<Candidate>> hunks;
  for (const Hunk& h : file.hunks) hunks.push_back(candidates_of(h, false));
  std::string name = file_of(file, 0);
  const auto chosen =  // no pre-image filter
      choose(hunks, [](std::string_view) { return std::optional<bool>(false); }, {});
  for (std::size_t h = 0; h < hunks.size(); ++h)
    for (std::size_t i : (*chosen)[h])
      out.push_back({std::string(hunks[h][i].text), false, Marker::Origin::kContext, name});
  return out;
}

}  // namespace sm120check
