// SHA-1 (FIPS 180-4) of git blob objects; see sha1.hpp.
#include "sha1.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace sm120check::git {
namespace {

std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

class Sha1 {
 public:
  void update(std::string_view data) {
    for (char c : data) {
      block_[fill_++] = static_cast<unsigned char>(c);
      if (fill_ == 64) {
        compress();
        fill_ = 0;
      }
    }
    length_ += data.size();
  }

  std::string hex() {
    std::uint64_t bits = length_ * 8;
    block_[fill_++] = 0x80;
    if (fill_ > 56) {
      while (fill_ < 64) block_[fill_++] = 0;
      compress();
      fill_ = 0;
    }
    while (fill_ < 56) block_[fill_++] = 0;
    for (int i = 7; i >= 0; --i) block_[fill_++] = static_cast<unsigned char>(bits >> (i * 8));
    compress();
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (std::uint32_t word : h_)
      for (int shift = 28; shift >= 0; shift -= 4) out += kDigits[(word >> shift) & 0xf];
    return out;
  }

 private:
  void compress() {
    std::array<std::uint32_t, 80> w;
    for (std::size_t i = 0; i < 16; ++i)
      w[i] = std::uint32_t{block_[4 * i]} << 24 | std::uint32_t{block_[4 * i + 1]} << 16 |
             std::uint32_t{block_[4 * i + 2]} << 8 | std::uint32_t{block_[4 * i + 3]};
    for (std::size_t i = 16; i < 80; ++i)
      w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (std::size_t i = 0; i < 80; ++i) {
      std::uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6;
      }
      std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
  }

  std::array<std::uint32_t, 5> h_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::array<unsigned char, 64> block_{};
  std::size_t fill_ = 0;
  std::uint64_t length_ = 0;
};

}  // namespace

std::string blob_sha1(std::string_view content) {
  Sha1 sha;
  std::string header = "blob " + std::to_string(content.size());
  header += '\0';
  sha.update(header);
  sha.update(content);
  return sha.hex();
}

}  // namespace sm120check::git
