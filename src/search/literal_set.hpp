// Internal to src/search: a set of fixed strings found in one pass over a text, built in
// microseconds: the engine of every fixed-string search (search_tree(), MarkerSearcher). It
// replaced a Vectorscan database, whose compile cost 30-90 us a literal, and which (Debian 12's
// 5.4.9, on AVX-512 hosts) missed matches: src/search/search.cpp says how.
//
// How (sampled anchors, as in q-gram filters): let m be the length of the shortest literal of
// 4 bytes or more; the scan looks at every S-th position of the text only (the stride S, 1 to
// 8, grows with m) and hashes the L bytes there (the anchor length L, 4 to 8, also grows with
// m; L + S - 1 <= m). Each literal registers as anchors the S windows of L bytes that start at
// S consecutive offsets of its rarest stretch (the L + S - 1 bytes of least commonness in
// source code: blanks and lower-case letters are common, digits, capitals and most punctuation
// are not), so every occurrence has exactly one anchor at a sampled position. A table of
// 2^14 bytes says which hashes are anchors; where one is, the anchors with exactly those bytes
// are compared with memcmp of their literal around the position. A literal of 1 to 3 bytes is
// found with memchr on its rarest byte. Identical literals are compared once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm120check::detail {

/// One literal of a LiteralSet: its bytes (non-empty, without "\n") and the id reported for it.
struct Literal {
  std::string_view text;
  std::uint32_t id = 0;
};

/// Fixed strings searched together, line by line (see the file comment).
class LiteralSet {
 public:
  /// What one scan needs, reused between scans (one per thread).
  struct Scratch {
    std::vector<std::size_t> next;  ///< per distinct literal: where its next hit may begin
  };

  /// Builds the set in O(total bytes of the literals + n log n) for n literals. Each literal
  /// must be non-empty and hold no "\n" (a line never holds one: the caller handles those and
  /// the empty literal; Error otherwise); a literal may be given several times, under
  /// different ids or the same.
  explicit LiteralSet(const std::vector<Literal>& literals);

  /// Appends (b, id) to `hits` for every line of `text` that holds a literal of this set,
  /// where b is the line's first byte (0 or just after a "\n") and id the literal's: each
  /// (line, id) once, in no particular order. Lines end at "\n"; the last one may lack it.
  /// With `first_line_only`, only one line per literal is reported (the first for a literal
  /// of 1 to 3 bytes, the first its anchor reaches for a longer one), and a literal found
  /// is compared no more: for callers that ask only which literals occur.
  /// Cost: O(bytes / stride + anchor matches x literal length + bytes per literal of 1 to 3
  /// bytes); each table hit costs a few compares (a binary search from the 255th anchor on).
  void scan(std::string_view text, Scratch& scratch,
            std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
            bool first_line_only = false) const;

  /// The stride S and anchor length L chosen (see the file comment): for tests.
  std::size_t stride() const { return stride_; }
  std::size_t anchor_length() const { return anchor_length_; }

 private:
  /// A distinct literal: its bytes in pool_ and the ids it reports.
  struct Entry {
    std::uint32_t begin = 0, size = 0;         ///< its bytes: pool_[begin, begin + size)
    std::uint32_t ids_begin = 0, ids_end = 0;  ///< its ids: ids_[ids_begin, ids_end)
    std::uint32_t rare = 0;                    ///< short literals: offset of the rarest byte
  };
  /// One window of anchor_length_ bytes of a long literal, at `offset` in it.
  struct Anchor {
    std::uint64_t window = 0;  ///< the bytes, loaded as in window_at()
    std::uint32_t hash = 0;    ///< hash(window)
    std::uint32_t entry = 0;   ///< index in long_
    std::uint32_t offset = 0;
  };
  /// The line holding a position of a text, remembered: positions looked up in increasing
  /// order (as the scans do) cost a memrchr/memchr from the line last located on.
  struct LineCursor {
    std::string_view text;
    std::size_t begin = 1, end = 0;  ///< the line last located: [begin, end), end at its "\n"
    /// Locates the line holding `pos` (< text.size(), not a "\n").
    void at(std::size_t pos);
  };

  /// 2^kHashBits bytes in first_: 16 KiB stay in the first-level cache beside the text.
  static constexpr unsigned kHashBits = 14;
  /// The largest stride; a literal registers `stride` anchors.
  static constexpr std::size_t kMaxStride = 8;

  static std::uint32_t hash(std::uint64_t window) {
    return static_cast<std::uint32_t>((window * 0x9E3779B97F4A7C15u) >> (64 - kHashBits));
  }
  void report(const Entry& e, std::size_t line_begin,
              std::vector<std::pair<std::size_t, std::uint32_t>>& hits) const;
  /// The long literals anchored at the bytes `window` at `pos` of `text`: compared, reported.
  void check(std::string_view text, std::size_t pos, std::uint64_t window, Scratch& scratch,
             LineCursor& line, std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
             bool first_line_only) const;
  void scan_long(std::string_view text, Scratch& scratch,
                 std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                 bool first_line_only) const;
  void scan_short(std::string_view text, const Entry& e,
                  std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                  bool first_line_only) const;

  std::string pool_;                ///< the distinct literals' bytes, one after another
  std::vector<std::uint32_t> ids_;  ///< the ids of each entry, grouped per entry
  std::vector<Entry> long_;         ///< literals of 4 bytes or more
  std::vector<Entry> short_;        ///< literals of 1 to 3 bytes
  std::vector<Anchor> anchors_;     ///< sorted by hash (then window, entry, offset)
  std::size_t stride_ = 1, anchor_length_ = 4;
  std::uint64_t mask_ = 0;  ///< the anchor_length_ bytes of a loaded window
  /// Per hash: 0 when no anchor has it, else 1 + the index in anchors_ of the first that has
  /// it, or 255 from index 254 on (then found by binary search).
  std::array<std::uint8_t, std::size_t{1} << kHashBits> first_{};
};

}  // namespace sm120check::detail
