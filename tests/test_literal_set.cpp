// The in-memory literal engine of MarkerSearcher (src/search/literal_set.hpp) against the obvious
// line-by-line search. MarkerSearcher against search_tree(): test_search.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../src/search/literal_set.hpp"
#include "sm120check/error.hpp"

namespace sm120check {
namespace {

using detail::Literal;
using detail::LiteralSet;
using Hits = std::vector<std::pair<std::size_t, std::uint32_t>>;

/// (line begin, id) for every line of `text` holding each literal, found line by line, sorted.
Hits reference(std::string_view text, const std::vector<Literal>& literals) {
  Hits out;
  for (std::size_t b = 0; b < text.size();) {
    std::size_t e = std::min(text.find('\n', b), text.size());
    for (const Literal& l : literals)
      if (text.substr(b, e - b).find(l.text) != std::string_view::npos) out.emplace_back(b, l.id);
    b = e + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// What LiteralSet::scan reports, sorted (it promises no order).
Hits scanned(std::string_view text, const std::vector<Literal>& literals) {
  LiteralSet set(literals);
  LiteralSet::Scratch scratch;
  Hits out;
  set.scan(text, scratch, out);
  std::sort(out.begin(), out.end());
  return out;
}

/// The distinct ids of `hits`, sorted.
std::vector<std::uint32_t> found_ids(const Hits& hits) {
  std::vector<std::uint32_t> ids;
  for (const auto& hit : hits) ids.push_back(hit.second);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

/// The distinct ids LiteralSet::scan reports with first_line_only, sorted.
std::vector<std::uint32_t> first_lines(std::string_view text,
                                       const std::vector<Literal>& literals) {
  LiteralSet set(literals);
  LiteralSet::Scratch scratch;
  Hits out;
  set.scan(text, scratch, out, /*first_line_only=*/true);
  return found_ids(out);
}

std::vector<Literal> numbered(const std::vector<std::string_view>& texts) {
  std::vector<Literal> out;
  for (std::size_t i = 0; i < texts.size(); ++i)
    out.push_back({texts[i], static_cast<std::uint32_t>(i)});
  return out;
}

TEST(LiteralSet, LinesHoldingEachLiteralOnceWhereverItSits) {
  const std::string text = "CAP == 12 at start\nmiddle CAP == 12 and CAP == 12\r\n\nends CAP == 12";
  const std::vector<Literal> lits = numbered({"CAP == 12"});
  EXPECT_EQ(scanned(text, lits), (Hits{{0, 0}, {19, 0}, {52, 0}}));
  EXPECT_EQ(scanned(text, lits), reference(text, lits));
  // The whole text, the text plus one byte, a literal longer than the text.
  EXPECT_EQ(scanned("CAP == 12", lits), (Hits{{0, 0}}));
  EXPECT_EQ(scanned("CAP == 1", lits), Hits{});
  EXPECT_EQ(scanned("", lits), Hits{});
  EXPECT_EQ(scanned("abc", numbered({"abcd", "bc"})), (Hits{{0, 1}}));
}

TEST(LiteralSet, ALiteralRepeatedInALineOrOverlappingItselfCountsOnce) {
  const std::string text = std::string(50, 'a') + "\n" + std::string(3, 'a') + "\naaaa";
  const std::vector<Literal> lits = numbered({"aaaa", "aa", "a"});
  EXPECT_EQ(scanned(text, lits), reference(text, lits));
  EXPECT_EQ(scanned(text, lits).size(), 3u + 2u + 3u);
}

TEST(LiteralSet, IdenticalLiteralsReportEachId) {
  std::vector<Literal> lits = {
      {"needle_x", 4}, {"needle", 1}, {"needle_x", 2}, {"ne", 7}, {"ne", 3}};
  const std::string text = "a needle_x b\nneedle\nnone\n";
  EXPECT_EQ(
      scanned(text, lits),
      (Hits{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 7}, {13, 1}, {13, 3}, {13, 7}, {20, 3}, {20, 7}}));
}

TEST(LiteralSet, PrefixesSuffixesAndSharedAnchors) {
  // The same rare window "[0]" in several literals: each is compared on its own.
  const std::vector<Literal> lits =
      numbered({"CUDA_CAPABILITY[0] == 12", "CUDA_CAPABILITY[0] == 120", "CAPABILITY[0]",
                "Y[0] ==", "[0] == 12", "CUDA_CAPABILITY[0] >= 12", "[0]"});
  const std::string text =
      "if CUDA_CAPABILITY[0] == 12:\nif CUDA_CAPABILITY[0] == 120:\r\nx[0] == 1\n"
      "CUDA_CAPABILITY[0] >= 12 or CUDA_CAPABILITY[0] == 12\nCUDA_CAPABILITY[1] == 12";
  EXPECT_EQ(scanned(text, lits), reference(text, lits));
  EXPECT_EQ(scanned(text, lits).size(), 5u + 6u + 1u + 6u + 0u);
}

TEST(LiteralSet, ShortLiteralsAtTheEdges) {
  const std::vector<Literal> lits = numbered({"Q", "]x", "Q]x", "\r", "\xff", "q"});
  for (const std::string text :
       {"Q", "]x", "Q]x", "aQ]x", "Q]xa\nb]x\r\n\xff", "\n\nQ\n\n", "]", "Q]", "x]xQ]xQ"}) {
    EXPECT_EQ(scanned(text, lits), reference(text, lits)) << text;
  }
}

TEST(LiteralSet, EmptyLiteralsAndLineEndsAreTheCallersBusiness) {
  EXPECT_THROW(LiteralSet(numbered({""})), Error);
  EXPECT_THROW(LiteralSet(numbered({"a\nb"})), Error);
  EXPECT_EQ(scanned("x", {}), Hits{});
}

TEST(LiteralSet, AgreesWithTheLineByLineSearchOnRandomText) {
  // A small alphabet makes anchors repeat, literals overlap and hits crowd; lines of every
  // length, CRLF, literals of every length from 1 byte (the memchr path) up.
  std::mt19937 rng(12);
  const std::string alphabet = "aab \r\n_[0]";
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (std::size_t i = pick(120); i > 0; --i) text += alphabet[pick(alphabet.size() - 1)];
    std::vector<std::string> owned;
    for (std::size_t i = 1 + pick(12); i > 0; --i) {
      std::string lit;
      if (!text.empty() && pick(2) != 0) {
        lit = text.substr(pick(text.size() - 1), 1 + pick(9));  // often present
      } else {
        for (std::size_t k = 1 + pick(7); k > 0; --k) lit += alphabet[pick(alphabet.size() - 1)];
      }
      lit.erase(std::remove(lit.begin(), lit.end(), '\n'), lit.end());
      if (!lit.empty()) owned.push_back(lit);
    }
    std::vector<Literal> lits;
    for (std::size_t i = 0; i < owned.size(); ++i)
      lits.push_back({owned[i], static_cast<std::uint32_t>(i / 2)});  // some ids twice
    ASSERT_EQ(scanned(text, lits), reference(text, lits)) << "round " << round << ": " << text;
    ASSERT_EQ(first_lines(text, lits), found_ids(reference(text, lits)))
        << "round " << round << ": " << text;
  }
}

TEST(LiteralSet, FirstLineOnlyReportsEachLiteralOnce) {
  // Which literals occur, each literal once (its ids each once): the markers' pre-image test.
  const std::string text = "CAP == 12 x\nab CAP == 12\nab\nzz";
  const std::vector<Literal> lits = numbered({"CAP == 12", "ab", "zz", "none here", "q"});
  LiteralSet set(lits);
  LiteralSet::Scratch scratch;
  Hits out;
  set.scan(text, scratch, out, /*first_line_only=*/true);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (Hits{{0, 0}, {12, 1}, {28, 2}}));
  EXPECT_EQ(first_lines(text, lits), (std::vector<std::uint32_t>{0, 1, 2}));
  // The same scratch then serves a scan of every line again.
  out.clear();
  set.scan(text, scratch, out);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, reference(text, lits));
}

TEST(LiteralSet, StrideAndAnchorLengthGrowWithTheShortestLongLiteral) {
  auto shape = [](std::vector<std::string_view> texts) {
    LiteralSet set(numbered(texts));
    return std::make_pair(set.stride(), set.anchor_length());
  };
  using Shape = std::pair<std::size_t, std::size_t>;
  EXPECT_EQ(shape({"abcd", "a much longer literal"}), Shape(1, 4));
  EXPECT_EQ(shape({"abcdefg", "ab"}), Shape(4, 4));  // "ab" is found apart
  EXPECT_EQ(shape({"CUDA_CAPAB"}), Shape(6, 5));
  EXPECT_EQ(shape({"CUDA_CAPABILITY[0] == 12"}), Shape(8, 8));
}

TEST(LiteralSet, EveryStrideFindsEveryOccurrence) {
  // For each shortest length m (stride 1 to 8, anchors of 4 to 8 bytes), literals placed at
  // every offset modulo the stride, next to near misses, in lines of every length.
  std::mt19937 rng(5);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };
  const std::string alphabet = "abcab_XY[0]== 12 ";
  for (std::size_t m = 4; m <= 24; ++m) {
    for (int round = 0; round < 60; ++round) {
      std::vector<std::string> owned;
      for (std::size_t i = 0; i < 1 + pick(6); ++i) {
        std::string lit;
        for (std::size_t k = m + (i == 0 ? 0 : pick(20)); k > 0; --k)
          lit += alphabet[pick(alphabet.size() - 1)];
        owned.push_back(lit);
      }
      std::string text;
      while (text.size() < 400) {
        if (pick(3) == 0) {
          std::string lit = owned[pick(owned.size() - 1)];
          if (pick(2) == 0) lit[pick(lit.size() - 1)] ^= 1;  // a near miss
          text += lit;
        } else {
          text += pick(8) == 0 ? '\n' : alphabet[pick(alphabet.size() - 1)];
        }
      }
      std::vector<Literal> lits;
      for (std::size_t i = 0; i < owned.size(); ++i)
        lits.push_back({owned[i], static_cast<std::uint32_t>(i)});
      ASSERT_EQ(scanned(text, lits), reference(text, lits)) << "m " << m << ", round " << round;
    }
  }
}

TEST(LiteralSet, ScratchIsReusedAcrossTexts) {
  const std::vector<Literal> lits = numbered({"marker_one", "two"});
  LiteralSet set(lits);
  LiteralSet::Scratch scratch;
  for (const std::string text : {"marker_one two\nmarker_one\n", "two\nx marker_one", "tw"}) {
    Hits out;
    set.scan(text, scratch, out);
    std::sort(out.begin(), out.end());
    EXPECT_EQ(out, reference(text, lits)) << text;
  }
}

}  // namespace
}  // namespace sm120check
