// Repository facts of a work tree read straight from the git directory, without libgit2 (see
// read_work_tree_facts() in sm120check/git.hpp and docs/ARCHITECTURE.md, "Repository section").
//
// What is read, and only that: HEAD and the refs it names (loose, then packed-refs), the config
// keys that change what `git status` says about a path, the index (Documentation/
// gitformat-index.txt, versions 2, 3 and 4) read once for the touched paths (searched in 2 and
// 3, walked in 4) and its cache tree, and HEAD's commit object (loose or undeltified in a pack)
// for its tree id. Anything else (split or sparse index, a touched path that is untracked,
// skip-worktree, submodules, attributes when a file must be hashed, a delta-compressed commit,
// ...) answers "cannot tell" and the caller asks libgit2.
#include <dirent.h>
#include <fcntl.h>
#include <nettle/sha1.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../tree/mapped_file.hpp"
#include "index_scan.hpp"
#include "sha1.hpp"
#include "sm120check/error.hpp"
#include "sm120check/git.hpp"

namespace sm120check {
namespace {

/// The reader met something it does not handle: the caller falls back to libgit2.
struct CannotTell {};

std::optional<std::string> read_small_file(const std::string& path, std::size_t max = 1 << 20) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw CannotTell{};
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw CannotTell{};
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max) {
      ::close(fd);
      throw CannotTell{};
    }
  }
  ::close(fd);
  return out;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return std::string(s);
}

/// The lines of a small text file (a config, objects/info/alternates), each trimmed.
std::vector<std::string> trimmed_lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    out.push_back(trim(text.substr(at, eol - at)));
    at = eol + 1;
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool is_hex_id(std::string_view s) {
  return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string hex_of(const unsigned char* raw) {
  static const char* digits = "0123456789abcdef";
  std::string out(40, '0');
  for (std::size_t i = 0; i < 20; ++i) {
    out[2 * i] = digits[raw[i] >> 4];
    out[2 * i + 1] = digits[raw[i] & 15];
  }
  return out;
}

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// ---------------------------------------------------------------------------------------------
// Config: the keys of the [core] and [extensions] sections that matter here, from the system,
// global and repository files (git's order; later files win). Includes are not followed: a file
// with an include section cannot be told.

struct Config {
  std::map<std::string, std::string> values;  ///< "section.key" (lower case) -> raw value

  std::optional<bool> flag(const std::string& key) const {
    auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    std::string v = lower(it->second);
    if (v.empty() || v == "true" || v == "yes" || v == "on" || v == "1") return true;
    if (v == "false" || v == "no" || v == "off" || v == "0") return false;
    throw CannotTell{};
  }
  bool has(const std::string& key) const { return values.count(key) != 0; }

  void read(const std::string& path) {
    std::optional<std::string> text = read_small_file(path);
    if (!text) return;
    std::string section;
    for (std::string line : trimmed_lines(*text)) {
      if (line.empty() || line[0] == '#' || line[0] == ';') continue;
      if (line.back() == '\\') throw CannotTell{};  // continued value
      if (line[0] == '[') {
        std::size_t close = line.find(']');
        if (close == std::string::npos) throw CannotTell{};
        std::string head = trim(std::string_view(line).substr(1, close - 1));
        std::size_t space = head.find_first_of(" \t.");
        std::string name = lower(head.substr(0, space));
        if (name == "include" || name == "includeif") throw CannotTell{};
        // Only subsection-less sections matter here; others are kept under a name no key uses.
        section = space == std::string::npos ? name : name + "\x01";
        std::string rest = trim(std::string_view(line).substr(close + 1));
        if (rest.empty() || rest[0] == '#' || rest[0] == ';') continue;
        line = rest;  // "[core] key = value" on one line
      }
      std::size_t eq = line.find('=');
      std::string key = lower(trim(std::string_view(line).substr(0, eq)));
      std::string value = eq == std::string::npos ? "" : trim(std::string_view(line).substr(eq + 1));
      if (value.find_first_of("\"\\#;") != std::string::npos) {
        // Quoting, escapes and trailing comments: only a plain quoted word is understood.
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"' &&
            value.find_first_of("\"\\", 1) == value.size() - 1)
          value = value.substr(1, value.size() - 2);
        else if (section == "core" || section == "extensions")
          throw CannotTell{};
      }
      values[section + "." + key] = value;
    }
  }
};

std::string home_dir() {
  const char* home = std::getenv("HOME");
  return home != nullptr ? home : "";
}

std::string xdg_config_home() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg != nullptr && *xdg != '\0') return xdg;
  std::string home = home_dir();
  return home.empty() ? "" : home + "/.config";
}

Config read_config(const std::string& common_dir, const std::string& git_dir) {
  Config c;
  if (std::getenv("GIT_CONFIG_NOSYSTEM") == nullptr) c.read("/etc/gitconfig");
  std::string xdg = xdg_config_home();
  if (!xdg.empty()) c.read(xdg + "/git/config");
  std::string home = home_dir();
  if (!home.empty()) c.read(home + "/.gitconfig");
  c.read(common_dir + "/config");
  if (exists(git_dir + "/config.worktree")) throw CannotTell{};
  return c;
}

// ---------------------------------------------------------------------------------------------
// HEAD and refs.

/// The id a reference points to, following symbolic refs; "" when it does not exist (unborn).
/// `name` receives the final reference's name.
std::string resolve_ref(const std::string& git_dir, const std::string& common_dir,
                        std::string name, std::string& final_name) {
  for (int depth = 0; depth < 5; ++depth) {
    final_name = name;
    // Per-worktree refs (HEAD, refs/bisect, refs/worktree, ...) live in the git directory,
    // shared ones in the common directory.
    const bool per_worktree = name.find('/') == std::string::npos ||
                              name.rfind("refs/bisect/", 0) == 0 ||
                              name.rfind("refs/worktree/", 0) == 0 ||
                              name.rfind("refs/rewritten/", 0) == 0;
    if (name.find("..") != std::string::npos) throw CannotTell{};
    std::optional<std::string> loose =
        read_small_file((per_worktree ? git_dir : common_dir) + "/" + name, 4096);
    if (loose) {
      std::string t = trim(*loose);
      if (t.rfind("ref:", 0) == 0) {
        name = trim(std::string_view(t).substr(4));
        continue;
      }
      if (!is_hex_id(t)) throw CannotTell{};
      return t;
    }
    if (per_worktree) return "";
    std::optional<std::string> packed = read_small_file(common_dir + "/packed-refs", 256 << 20);
    if (!packed) return "";
    // "<id> <name>" lines; "#" header, "^<id>" peeled tags.
    std::string_view p = *packed;
    std::size_t at = 0;
    while (at < p.size()) {
      std::size_t eol = p.find('\n', at);
      if (eol == p.npos) eol = p.size();
      std::string_view line = p.substr(at, eol - at);
      at = eol + 1;
      if (line.size() > 41 && line[40] == ' ' && line.substr(41) == name) {
        if (!is_hex_id(line.substr(0, 40))) throw CannotTell{};
        return std::string(line.substr(0, 40));
      }
    }
    return "";
  }
  throw CannotTell{};  // a loop of symbolic refs
}

// ---------------------------------------------------------------------------------------------
// Objects: HEAD's commit, for its tree id.

/// Inflates the start of a zlib stream (at most `want` bytes out).
std::string inflate_start(const unsigned char* data, std::size_t size, std::size_t want) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw CannotTell{};
  std::string out(want, '\0');
  z.next_in = const_cast<unsigned char*>(data);
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(size, UINT_MAX));
  z.next_out = reinterpret_cast<unsigned char*>(out.data());
  z.avail_out = static_cast<uInt>(want);
  int rc = inflate(&z, Z_SYNC_FLUSH);
  std::size_t got = want - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) throw CannotTell{};
  out.resize(got);
  return out;
}

/// A private mapping of a whole file (detail::MappedFile: reads through its guarded() survive
/// the file shrinking). Pack and loose object files are never rewritten by git, so only the
/// index is read guarded.
struct Mapped {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  struct stat st {};
  std::optional<detail::MappedFile> file;
  /// False when the file does not exist; throws CannotTell when it cannot be read.
  bool open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      if (errno == ENOENT) return false;
      throw CannotTell{};
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw CannotTell{};
    }
    size = static_cast<std::size_t>(st.st_size);
    if (size > 0) {
      try {
        file.emplace(fd, size, path);
      } catch (const Error&) {
        ::close(fd);
        throw CannotTell{};
      }
      data = file->data();
    }
    ::close(fd);
    return true;
  }
};

/// The "tree <id>" line of a commit's text.
std::string tree_of_commit_text(std::string_view text) {
  if (text.size() < 45 || text.substr(0, 5) != "tree " || !is_hex_id(text.substr(5, 40)))
    throw CannotTell{};
  return std::string(text.substr(5, 40));
}

std::optional<std::string> commit_tree_id_in(const std::string& objects, const std::string& id);

/// The tree id of commit `id`: from its loose object, or from a pack where it is stored whole,
/// in the repository's object directory or one it borrows from (objects/info/alternates, as
/// `git clone --shared` or `--reference` leave; one level).
std::string commit_tree_id(const std::string& common_dir, const std::string& id) {
  const std::string objects = common_dir + "/objects";
  if (std::optional<std::string> tree = commit_tree_id_in(objects, id)) return *tree;
  if (std::optional<std::string> alternates = read_small_file(objects + "/info/alternates")) {
    for (const std::string& line : trimmed_lines(*alternates)) {
      if (line.empty() || line[0] == '#') continue;
      if (line[0] == '"') throw CannotTell{};  // quoted path
      const std::string dir = line[0] == '/' ? line : objects + "/" + line;
      if (std::optional<std::string> tree = commit_tree_id_in(dir, id)) return *tree;
    }
  }
  throw CannotTell{};
}

/// commit_tree_id() in one object directory; std::nullopt when the commit is not there.
std::optional<std::string> commit_tree_id_in(const std::string& objects, const std::string& id) {
  {
    Mapped loose;
    if (loose.open(objects + "/" + id.substr(0, 2) + "/" + id.substr(2))) {
      std::string head = inflate_start(loose.data, loose.size, 128);
      std::size_t nul = head.find('\0');
      if (nul == std::string::npos || head.compare(0, 7, "commit ") != 0) throw CannotTell{};
      return tree_of_commit_text(std::string_view(head).substr(nul + 1));
    }
  }
  unsigned char raw[20];
  for (std::size_t i = 0; i < 20; ++i)
    raw[i] = static_cast<unsigned char>(std::stoi(id.substr(2 * i, 2), nullptr, 16));
  // Every pack index (version 2): fan-out table, sorted ids, CRCs, 4-byte offsets, 8-byte offsets.
  std::vector<std::string> idx_files;
  if (DIR* dir = ::opendir((objects + "/pack").c_str())) {
    while (dirent* e = ::readdir(dir)) {
      std::string_view n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".idx") idx_files.emplace_back(n);
    }
    ::closedir(dir);
  }
  for (const std::string& name : idx_files) {
    Mapped idx;
    if (!idx.open(objects + "/pack/" + name)) continue;
    const unsigned char* d = idx.data;
    if (idx.size < 8 + 256 * 4 || std::memcmp(d, "\377tOc", 4) != 0 || be32(d + 4) != 2)
      throw CannotTell{};
    const unsigned char* fan = d + 8;
    const std::uint32_t n = be32(fan + 255 * 4);
    const std::uint32_t lo = raw[0] == 0 ? 0 : be32(fan + (raw[0] - 1) * 4);
    const std::uint32_t hi = be32(fan + raw[0] * 4);
    const unsigned char* ids = fan + 256 * 4;
    if (idx.size < 8 + 256 * 4 + std::size_t{n} * 28 || lo > hi || hi > n) throw CannotTell{};
    std::uint32_t a = lo, b = hi;
    while (a < b) {
      std::uint32_t mid = a + (b - a) / 2;
      int cmp = std::memcmp(ids + std::size_t{mid} * 20, raw, 20);
      if (cmp == 0) {
        a = mid;
        b = mid + 1;
        break;
      }
      if (cmp < 0)
        a = mid + 1;
      else
        b = mid;
    }
    if (a >= b || std::memcmp(ids + std::size_t{a} * 20, raw, 20) != 0) continue;
    const unsigned char* offsets = ids + std::size_t{n} * 24;
    std::uint64_t offset = be32(offsets + std::size_t{a} * 4);
    if (offset & 0x80000000u) throw CannotTell{};  // a pack over 2 GiB
    Mapped pack;
    std::string pack_name = name.substr(0, name.size() - 4) + ".pack";
    if (!pack.open(objects + "/pack/" + pack_name) || offset + 32 > pack.size) throw CannotTell{};
    const unsigned char* p = pack.data + offset;
    const int type = (p[0] >> 4) & 7;
    if (type != 1) throw CannotTell{};  // deltified (6, 7) or not a commit
    std::size_t k = 0;
    while (p[k] & 0x80) {
      if (++k > 10) throw CannotTell{};
    }
    ++k;
    std::string head = inflate_start(p + k, pack.size - offset - k, 64);
    return tree_of_commit_text(head);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// The index (types in index_scan.hpp).

using git::IndexEntry;
using git::IndexRead;
using git::IndexScan;

std::uint16_t be16(const unsigned char* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

/// Parses one cache-tree node and its subtrees at `at` (gitformat-index.txt, "Cache tree"):
/// "<path>\0<entry count> <subtree count>\n" and a 20-byte id unless the count is -1. Returns
/// false on anything malformed; `count` and `id` receive the node's own.
bool parse_cache_tree(std::string_view data, std::size_t& at, int depth, long& count,
                      std::optional<std::string>& id) {
  if (depth > 4096) return false;
  const std::size_t nul = data.find('\0', at);
  if (nul == data.npos) return false;
  // "<entries> <subtrees>\n", entries possibly -1; parsed in place (thousands of nodes).
  std::size_t k = nul + 1;
  auto number = [&](long& value, bool may_be_negative) {
    bool negative = false;
    if (may_be_negative && k < data.size() && data[k] == '-') {
      negative = true;
      ++k;
    }
    const std::size_t first = k;
    value = 0;
    while (k < data.size() && data[k] >= '0' && data[k] <= '9' && k - first < 12)
      value = value * 10 + (data[k++] - '0');
    if (negative) value = -value;
    return k > first;
  };
  long entries = 0, subtrees = 0;
  if (!number(entries, true) || k >= data.size() || data[k++] != ' ') return false;
  if (!number(subtrees, false) || k >= data.size() || data[k++] != '\n') return false;
  if (entries < -1) return false;
  at = k;
  count = entries;
  if (entries >= 0) {
    if (at + 20 > data.size()) return false;
    if (depth == 0) id = hex_of(reinterpret_cast<const unsigned char*>(data.data() + at));
    at += 20;
  }
  for (long n = 0; n < subtrees; ++n) {
    long c = 0;
    if (!parse_cache_tree(data, at, depth + 1, c, id)) return false;
  }
  return true;
}

/// The TREE extension found from the end of the index.
struct TreeAtTheEnd {
  std::size_t at = 0;               ///< offset of its "TREE" signature
  std::optional<std::string> root;  ///< the root's id; std::nullopt when invalid (count -1)
};

/// The root of the TREE extension, found from the end of the index when the entries were not
/// all read: the last "TREE" at or after `from` whose extension chain (upper-case signatures)
/// ends exactly at the checksum, whose data parse as a cache tree to its last byte, and whose
/// root counts all `entries`. std::nullopt when there is no such extension (the caller then
/// reads on).
std::optional<TreeAtTheEnd> tree_from_the_end(const unsigned char* d, std::size_t from,
                                              std::size_t end, std::uint32_t entries) {
  auto chain_ends = [&](std::size_t q) {
    while (q < end) {
      if (q + 8 > end) return false;
      for (std::size_t k = 0; k < 4; ++k)
        if (d[q + k] < 'A' || d[q + k] > 'Z') return false;
      q += 8 + std::size_t{be32(d + q + 4)};
    }
    return q == end;
  };
  if (end < 8 || end - 8 < from) return std::nullopt;
  for (std::size_t p = end - 8 + 1; p-- > from;) {
    if (d[p] != 'T' || std::memcmp(d + p, "TREE", 4) != 0) continue;
    const std::size_t len = be32(d + p + 4);
    if (len == 0 || p + 8 + len > end || !chain_ends(p + 8 + len)) continue;
    const std::string_view data(reinterpret_cast<const char*>(d + p + 8), len);
    if (data[0] != '\0') continue;
    std::size_t at = 0;
    long count = 0;
    std::optional<std::string> id;
    if (!parse_cache_tree(data, at, 0, count, id) || at != len) continue;
    if (count >= 0 && count != static_cast<long>(entries)) continue;
    return TreeAtTheEnd{p, id};  // an invalid root (-1) is found too: then nothing is known
  }
  return std::nullopt;
}

/// The walk's state over the sorted wanted paths: every entry read is shown to it, in order,
/// and it records what the entries say about each wanted path.
class WantedPaths {
 public:
  WantedPaths(const std::vector<std::string>& wanted, IndexScan& out) : wanted_(wanted), out_(out) {
    out_.found.assign(wanted.size(), std::nullopt);
    out_.conflicted.assign(wanted.size(), false);
    out_.is_dir.assign(wanted.size(), false);
  }
  /// True when every wanted path sorts before the last entry shown: no later entry matters.
  bool passed() const { return next_ >= wanted_.size(); }
  /// The first wanted path not yet passed, and its number (passed() must be false).
  const std::string& next() const { return wanted_[next_]; }
  std::size_t next_number() const { return next_; }

  /// Shows the entry at `e` (its header; `extended`: v3's extended flags, else 0) named `name`.
  void show(std::string_view name, const unsigned char* e, std::uint16_t flags,
            std::uint16_t extended) {
    // Advance past wanted paths sorting before this entry. Git sorts by bytes, which a
    // directory's entries ("a/x") keep inside the range of its name ("a" < "a/x" < "a0").
    while (next_ < wanted_.size() && std::string_view(wanted_[next_]) < name) {
      const std::string& w = wanted_[next_];
      if (name.size() > w.size() && name.compare(0, w.size(), w) == 0 && name[w.size()] == '/')
        out_.is_dir[next_] = true;
      ++next_;
    }
    if (next_ >= wanted_.size() || name != wanted_[next_]) return;
    if (((flags >> 12) & 3) != 0) {
      out_.conflicted[next_] = true;
      return;
    }
    IndexEntry ie;
    ie.ctime_s = be32(e);
    ie.ctime_ns = be32(e + 4);
    ie.mtime_s = be32(e + 8);
    ie.mtime_ns = be32(e + 12);
    ie.dev = be32(e + 16);
    ie.ino = be32(e + 20);
    ie.mode = be32(e + 24);
    ie.uid = be32(e + 28);
    ie.gid = be32(e + 32);
    ie.size = be32(e + 36);
    ie.id = hex_of(e + 40);
    ie.assume_valid = (flags & 0x8000) != 0;
    ie.skip_worktree = (extended & 0x4000) != 0;
    ie.intent_to_add = (extended & 0x2000) != 0;
    out_.found[next_] = std::move(ie);
  }

 private:
  const std::vector<std::string>& wanted_;
  IndexScan& out_;
  std::size_t next_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Finding a wanted path without reading the entries before it (versions 2 and 3).
//
// The entries have no table of offsets (the IEOT extension has one, but git writes it only
// with index.threads set), yet their layout lets a reader that lands on any byte find the next
// entry. The entries start 12 bytes in, and each is padded with 1-8 NULs to a multiple of 8
// bytes, so every entry starts at an offset of 4 modulo 8. And an entry as git writes it is
// recognisable: its mode (bytes 24-27) is one of 00 00 81 a4 (100644), 00 00 81 ed (100755),
// 00 00 a0 00 (120000) or 00 00 e0 00 (160000); the 12-bit length in its flags (bytes 60-61)
// equals the bytes before the name's NUL (0xfff: at least that many); the padding is NULs
// exactly to the next multiple of 8; the extended flag (64-byte header) only in v3 and with no
// reserved bit; the name is not empty and does not start or end with '/'; names increase
// (equal only for conflict stages 1 < 2 < 3).
//
// Can a place that is not an entry's start pass those checks (a false synchronisation)? Say a
// false entry F starts at m inside a real entry R that starts at b (m ≡ b mod 8, b < m). F's
// mode puts two NULs at m+24, and a name holds no NUL: so m+24 is not in R's name. Nor in R's
// padding: its NULs run to R's end, which is 8-aligned like m+24, while byte m+26 (F's mode's
// third byte) is not NUL. So F's mode is a 4-byte field of R (gid, or the sha-1's bytes 0, 8
// or 12 on) or of the next entry (ctime, mtime, dev) that holds one of the four modes: rare but
// possible (a gid of 40960 = 0xa000 is plausible), so a mode alone proves nothing. F's name
// starts 62 or 64 bytes after m. If that is inside R's name, F's name ends at R's NUL (its
// first NUL), and F's padding, rounding to the same multiple of 8 since m ≡ b, ends exactly
// where R ends: F passes only when its length, two bytes of R's name read as flags, happens to
// match, and then the entries after F are R's successors, real ones. If F's name starts in a
// header instead (R's name is short, or F sits over the next header), the header's bytes must
// be NUL-free up to a NUL exactly at the length F's flags give, then exact padding, and the
// entry after F is again at a false place that needs its own mode-valued field and lengths.
// So a probe (below) trusts only the third of three consecutive entries that pass every check
// in order: a false one would take two false entries in a row, each its own coincidence. The
// reading after a jump checks each entry the same way, including its order after the probe,
// and on any failure the whole index is read the old way: a false "not in the index" would
// call a deleted file clean.
//
// The search also needs where the entries end: the TREE extension found from the end marks it
// only when entries read this strictly from a probe just before it end exactly there (no other
// extension between, such as IEOT).

/// An entry of version 2 or 3 that passed the checks above.
struct StrictEntry {
  std::size_t at = 0, size = 0;  ///< its offset, and the bytes to the next entry
  std::string_view name;
  std::uint16_t flags = 0, extended = 0;
  unsigned stage() const { return (flags >> 12) & 3; }
};

class EntrySearch {
 public:
  /// `end`: where the entries end (the first extension, or the checksum).
  EntrySearch(const unsigned char* d, std::size_t end, std::uint32_t version)
      : d_(d), end_(end), version_(version) {}

  std::size_t end() const { return end_; }

  /// The entry at `at` (an offset of 4 modulo 8) when it is one git could have written there.
  std::optional<StrictEntry> entry_at(std::size_t at) const {
    if (at + 64 > end_) return std::nullopt;  // header, a name byte and a NUL at the least
    const unsigned char* e = d_ + at;
    const std::uint32_t mode = be32(e + 24);
    if (mode != 0100644 && mode != 0100755 && mode != 0120000 && mode != 0160000)
      return std::nullopt;
    StrictEntry s;
    s.at = at;
    s.flags = be16(e + 60);
    std::size_t header = 62;
    if (s.flags & 0x4000) {
      s.extended = be16(e + 62);
      if (version_ < 3 || (s.extended & ~0x6000) != 0) return std::nullopt;
      header = 64;
    }
    const std::size_t said = s.flags & 0xFFF;
    const char* name = reinterpret_cast<const char*>(e + header);
    const std::size_t room = end_ - at - header;
    const void* nul = std::memchr(name, '\0', said == 0xFFF ? room : std::min(room, said + 1));
    if (nul == nullptr) return std::nullopt;
    const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nul) - name);
    if (len == 0 || (said == 0xFFF ? len < 0xFFF : len != said)) return std::nullopt;
    s.size = (header + len + 8) & ~std::size_t{7};
    if (s.size > end_ - at) return std::nullopt;
    for (std::size_t k = header + len; k < s.size; ++k)
      if (e[k] != 0) return std::nullopt;
    if (name[0] == '/' || name[len - 1] == '/') return std::nullopt;
    s.name = std::string_view(name, len);
    return s;
  }

  /// Whether `b` may follow `a` in an index: a greater name, or the next conflict stage.
  static bool in_order(const StrictEntry& a, const StrictEntry& b) {
    const int c = a.name.compare(b.name);
    return c < 0 || (c == 0 && a.stage() != 0 && b.stage() > a.stage());
  }

  /// Whether the entries end exactly at end(): read strictly from a probe before it (or from
  /// the first entry in a small index), they must land there.
  bool ends_where_said() const {
    std::size_t at = 12;
    std::optional<StrictEntry> last;
    if (end_ - 12 > kTail) {
      last = probe(aligned(end_ - kTail), end_);
      if (!last) return false;
      at = last->at + last->size;
    }
    while (at < end_) {
      std::optional<StrictEntry> e = entry_at(at);
      if (!e || (last && !in_order(*last, *e))) return false;
      last = e;
      at += e->size;
    }
    return at == end_;
  }

  /// An entry at or after `from` (an entry's start) whose name sorts before `wanted`, as far on
  /// as the search finds: every entry from `from` to its end sorts before `wanted` too.
  /// std::nullopt when none was found (the first entry from `from` may be it). Gallops from
  /// `from` first (a patch's paths cluster, and those pages are mapped already), then bisects
  /// down to kWalk bytes.
  std::optional<StrictEntry> seek(std::size_t from, std::string_view wanted) const {
    std::optional<StrictEntry> before;
    std::size_t lo = from, hi = end_;
    auto narrow = [&](std::size_t mid) {
      std::optional<StrictEntry> p = probe(mid, hi);
      if (!p) {
        hi = mid;
        return false;
      }
      if (p->name < wanted) {
        lo = p->at + p->size;
        before = p;
        return true;
      }
      hi = p->at;
      return false;
    };
    for (std::size_t step = kWalk; hi - lo > step; step *= 2)
      if (!narrow(lo + step)) break;
    while (hi - lo > kWalk) narrow(lo + ((hi - lo) / 2 & ~std::size_t{7}));
    return before;
  }

 private:
  static constexpr std::size_t kWalk = 2048;   ///< bytes read in order rather than searched
  static constexpr std::size_t kScan = 16384;  ///< bytes a probe tries for an entry's start
  static constexpr std::size_t kTail = 16384;  ///< bytes before the end ends_where_said() reads
  static constexpr int kRun = 3;               ///< entries in a row a probe needs

  /// `at` moved on to the next offset of 4 modulo 8 (where entries start).
  static std::size_t aligned(std::size_t at) { return at + ((4 - at) & 7); }

  /// The last of the first kRun consecutive strict entries in order starting in
  /// [from, from + kScan), when it starts before `to`.
  std::optional<StrictEntry> probe(std::size_t from, std::size_t to) const {
    const std::size_t stop = std::min(to, from + kScan);
    for (std::size_t at = aligned(from); at < stop; at += 8) {
      std::optional<StrictEntry> last = entry_at(at);
      for (int k = 1; last && k < kRun; ++k) {
        std::optional<StrictEntry> e = entry_at(last->at + last->size);
        if (!e || !in_order(*last, *e))
          last.reset();
        else
          last = e;
      }
      if (last) return last->at < to ? last : std::nullopt;
    }
    return std::nullopt;
  }

  const unsigned char* d_;
  std::size_t end_;
  std::uint32_t version_;
};

/// Index files smaller than this are walked: the search would not save a page.
constexpr std::size_t kSearchFrom = 32768;

/// scan_index() through EntrySearch; std::nullopt when an entry read on the way is not as git
/// writes it (then the caller walks the index, the same answer or "cannot tell").
std::optional<IndexScan> search_index(const unsigned char* d, const EntrySearch& search,
                                      const std::vector<std::string>& wanted,
                                      const TreeAtTheEnd& tree, IndexScan out) {
  WantedPaths paths(wanted, out);
  std::size_t at = 12;
  std::optional<StrictEntry> last;  // the entry before `at`, when read
  std::size_t sought = wanted.size();
  while (!paths.passed() && at < search.end()) {
    // Each wanted path is sought once, when the walk has not reached it yet.
    if (paths.next_number() != sought && (!last || last->name < paths.next())) {
      sought = paths.next_number();
      if (std::optional<StrictEntry> before = search.seek(at, paths.next())) {
        at = before->at + before->size;
        last = before;
        out.searched = true;
        continue;
      }
    }
    std::optional<StrictEntry> e = search.entry_at(at);
    if (!e || (last && !EntrySearch::in_order(*last, *e))) return std::nullopt;
    paths.show(e->name, d + at, e->flags, e->extended);
    last = e;
    at += e->size;
  }
  out.root_tree = tree.root;
  return out;
}

/// Where the entries of an index of versions 2-3 end, found once for every search of it: its
/// TREE extension from the end (tree_from_the_end()), when the entries before it read as git
/// writes them up to it (EntrySearch::ends_where_said()). std::nullopt when the index is not
/// searched (too small, version 4, no such extension): then it is walked.
std::optional<TreeAtTheEnd> searchable_end(const unsigned char* d, std::size_t size) {
  if (size < 12 + 20 || std::memcmp(d, "DIRC", 4) != 0) return std::nullopt;
  const std::uint32_t version = be32(d + 4);
  const std::size_t end = size - 20;
  if (version < 2 || version > 3 || end <= kSearchFrom) return std::nullopt;
  std::optional<TreeAtTheEnd> tree = tree_from_the_end(d, 12, end, be32(d + 8));
  if (tree && !EntrySearch(d, tree->at, version).ends_where_said()) return std::nullopt;
  return tree;
}

/// Reads the index once; `wanted` must be sorted. With `may_stop`, the entries after the last
/// wanted path are not read when the TREE extension can be found from the end: `searchable`,
/// searchable_end() of this index (std::nullopt: the entries are walked).
IndexScan read_index_mapped(const unsigned char* d, std::size_t size,
                            const std::vector<std::string>& wanted, bool may_stop, IndexRead how,
                            IndexScan out, const std::optional<TreeAtTheEnd>& searchable);

IndexScan read_index(const std::string& path, const std::vector<std::string>& wanted,
                     bool may_stop, IndexRead how) {
  IndexScan out;
  Mapped m;
  if (!m.open(path)) throw CannotTell{};  // no index yet: every file is untracked
  out.index_mtime = m.st.st_mtim;
  if (m.size == 0) throw CannotTell{};
  // Git replaces its index by rename, never in place; a file truncated under us (by hand, or a
  // hostile user) reads zeros past its new end instead of killing the process with SIGBUS,
  // and the repository section says it cannot tell.
  IndexScan scan = m.file->guarded([&](const unsigned char* d, std::size_t size) {
    const bool search = how == IndexRead::search && may_stop && !wanted.empty();
    return read_index_mapped(d, size, wanted, may_stop, how, std::move(out),
                             search ? searchable_end(d, size) : std::nullopt);
  });
  if (m.file->shrank()) throw CannotTell{};
  return scan;
}

IndexScan read_index_mapped(const unsigned char* d, std::size_t size,
                            const std::vector<std::string>& wanted, bool may_stop, IndexRead how,
                            IndexScan out, const std::optional<TreeAtTheEnd>& searchable) {
  if (size < 12 + 20 || std::memcmp(d, "DIRC", 4) != 0) throw CannotTell{};
  const std::uint32_t version = be32(d + 4);
  if (version < 2 || version > 4) throw CannotTell{};
  const std::uint32_t count = be32(d + 8);
  const std::size_t end = size - 20;  // the trailing checksum
  if (how == IndexRead::search && may_stop && !wanted.empty() && searchable)
    if (std::optional<IndexScan> found =
            search_index(d, EntrySearch(d, searchable->at, version), wanted, *searchable, out))
      return std::move(*found);
  WantedPaths paths(wanted, out);
  std::size_t at = 12;
  std::string name;  // the current entry's path (v4 builds it from the previous one)
  bool tried_the_end = false;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (at + 62 > end) throw CannotTell{};
    const unsigned char* e = d + at;
    const std::uint16_t flags = be16(e + 60);
    std::size_t header = 62;
    std::uint16_t extended = 0;
    if (flags & 0x4000) {
      if (version < 3 || at + 64 > end) throw CannotTell{};
      extended = be16(e + 62);
      header = 64;
    }
    const char* name_at = reinterpret_cast<const char*>(e + header);
    const std::size_t room = end - at - header;
    std::size_t name_len = flags & 0xFFF;
    if (version == 4) {
      // Varint: bytes of the previous name to drop, then the NUL-terminated rest.
      std::size_t k = 0;
      std::uint64_t drop = 0;
      unsigned char c;
      do {
        if (k >= room || k > 9) throw CannotTell{};
        c = static_cast<unsigned char>(name_at[k++]);
        drop = (drop << 7) | (c & 0x7F);
        if (c & 0x80) ++drop;  // git's offset encoding
      } while (c & 0x80);
      if (drop > name.size()) throw CannotTell{};
      const char* rest = name_at + k;
      const void* nul = std::memchr(rest, '\0', room - k);
      if (nul == nullptr) throw CannotTell{};
      const std::size_t rest_len = static_cast<std::size_t>(static_cast<const char*>(nul) - rest);
      name.resize(name.size() - drop);
      name.append(rest, rest_len);
      at += header + k + rest_len + 1;
    } else {
      if (name_len == 0xFFF) {
        const void* nul = std::memchr(name_at, '\0', room);
        if (nul == nullptr) throw CannotTell{};
        name_len = static_cast<std::size_t>(static_cast<const char*>(nul) - name_at);
      } else if (name_len >= room) {
        throw CannotTell{};
      }
      at += (header + name_len + 8) & ~std::size_t{7};
    }
    if (paths.passed()) {
      // Past every wanted path: the rest is only walked to reach the extensions.
      if (may_stop && !tried_the_end) {
        tried_the_end = true;
        if (std::optional<TreeAtTheEnd> tree = tree_from_the_end(d, at, end, count)) {
          out.root_tree = tree->root;
          return out;
        }
      }
      continue;
    }
    paths.show(version == 4 ? std::string_view(name) : std::string_view(name_at, name_len), e,
               flags, extended);
  }
  // Extensions: a lower-case signature is one a reader must understand (split index "link",
  // sparse directories "sdir"): those cannot be told here.
  while (at + 8 <= end) {
    const unsigned char* x = d + at;
    const std::uint32_t len = be32(x + 4);
    if (at + 8 + std::size_t{len} > end) throw CannotTell{};
    if (x[0] >= 'a' && x[0] <= 'z') throw CannotTell{};
    if (std::memcmp(x, "TREE", 4) == 0 && len > 0) {
      // First node: the root, "\0<entry count> <subtrees>\n<id>" (count -1: invalid, no id).
      const char* t = reinterpret_cast<const char*>(x + 8);
      const std::string_view node(t, len);
      if (node[0] == '\0') {
        std::size_t nl = node.find('\n');
        if (nl != node.npos && node[1] != '-' && nl + 21 <= node.size())
          out.root_tree = hex_of(reinterpret_cast<const unsigned char*>(t + nl + 1));
      }
    }
    at += 8 + len;
  }
  return out;
}

/// The SHA-1 of `size` bytes at `d` (20 raw bytes).
std::string sha1_raw(const unsigned char* d, std::size_t size) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, size, d);
  std::string digest(SHA1_DIGEST_SIZE, '\0');
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, reinterpret_cast<std::uint8_t*>(digest.data()));
  return digest;
}

/// git::check_index_file() over the mapped bytes of the file.
git::IndexFileCheck check_index_mapped(const unsigned char* d, std::size_t size, bool hash) {
  using Check = git::IndexFileCheck;
  Check out;
  out.state = Check::State::refused;
  // The header (read-cache.c: do_read_index(), verify_hdr(); the reasons are git's words).
  if (size < 12 + 20) {
    out.reason =
        size == 0 ? "index file smaller than expected (empty)" : "index file smaller than expected";
    return out;
  }
  if (std::memcmp(d, "DIRC", 4) != 0) {
    out.reason = "bad signature (not \"DIRC\"): not an index file";
    return out;
  }
  out.version = be32(d + 4);
  out.entries = be32(d + 8);
  if (out.version < 2 || out.version > 4) {
    out.reason = "bad index version " + std::to_string(out.version);
    return out;
  }
  const std::size_t end = size - 20;
  std::size_t at = 12;
  std::size_t name_len = 0;  // v4: the previous name's length
  for (std::uint32_t i = 0; i < out.entries; ++i) {
    const std::size_t header = at + 62 <= end && (be16(d + at + 60) & 0x4000) ? 64 : 62;
    if (at + header > end) {
      out.reason = "index file corrupt: entry " + std::to_string(i + 1) + " of " +
                   std::to_string(out.entries) + " runs past the end (truncated?)";
      return out;
    }
    const std::size_t room = end - at - header;
    const unsigned char* name = d + at + header;
    if (out.version == 4) {
      std::size_t k = 0;
      std::uint64_t drop = 0;
      unsigned char c = 0x80;
      while ((c & 0x80) && k < room && k <= 9) {
        c = name[k++];
        drop = (drop << 7) | (c & 0x7F);
        if (c & 0x80) ++drop;
      }
      const void* nul = (c & 0x80) ? nullptr : std::memchr(name + k, '\0', room - k);
      if (nul == nullptr || drop > name_len) {
        out.reason = "index file corrupt: entry " + std::to_string(i + 1) + " of " +
                     std::to_string(out.entries) + " is malformed (truncated?)";
        return out;
      }
      const std::size_t rest =
          static_cast<std::size_t>(static_cast<const unsigned char*>(nul) - (name + k));
      name_len = name_len - drop + rest;
      at += header + k + rest + 1;
    } else {
      const void* nul = std::memchr(name, '\0', room);
      if (nul == nullptr) {
        out.reason = "index file corrupt: entry " + std::to_string(i + 1) + " of " +
                     std::to_string(out.entries) + " runs past the end (truncated?)";
        return out;
      }
      const std::size_t len =
          static_cast<std::size_t>(static_cast<const unsigned char*>(nul) - name);
      at += (header + len + 8) & ~std::size_t{7};
      if (at > end) {
        out.reason = "index file corrupt: entry " + std::to_string(i + 1) + " of " +
                     std::to_string(out.entries) + " runs past the end (truncated?)";
        return out;
      }
    }
  }
  // Extensions, each "<4-byte signature><32-bit size><data>", up to the trailer exactly.
  while (at < end) {
    if (at + 8 > end || at + 8 + std::size_t{be32(d + at + 4)} > end) {
      out.reason = "index file corrupt: an extension runs past the end (truncated?)";
      return out;
    }
    const std::string_view sig(reinterpret_cast<const char*>(d + at), 4);
    if (sig == "link") {
      out.split = true;
    } else if (sig == "sdir") {
      out.sparse = true;
    } else if (sig[0] >= 'a' && sig[0] <= 'z') {
      out.reason = "index uses " + std::string(sig) + " extension, which we do not understand";
      return out;
    } else if (sig[0] < 'A' || sig[0] > 'Z') {
      out.reason = "index file corrupt: a malformed extension (truncated?)";
      return out;
    }
    at += 8 + std::size_t{be32(d + at + 4)};
  }
  out.state = Check::State::readable;
  const unsigned char* trailer = d + end;
  if (std::all_of(trailer, trailer + 20, [](unsigned char c) { return c == 0; }))
    out.trailer = Check::Trailer::zero;
  else if (hash)
    out.trailer = std::memcmp(sha1_raw(d, end).data(), trailer, 20) == 0 ? Check::Trailer::checksum
                                                                         : Check::Trailer::other;
  return out;
}

// ---------------------------------------------------------------------------------------------
// One touched path against its index entry.

/// exists() of each path asked, looked up once: the attribute files every touched path shares
/// (the global ones, those of the folders above it) cost one lstat(2) per run of the caller,
/// not one per path (7 paths under 2-level folders asked 35, all missing).
class ExistsOnce {
 public:
  bool operator()(const std::string& path) {
    const auto [it, added] = known_.try_emplace(path, false);
    if (added) it->second = exists(path);
    return it->second;
  }

 private:
  std::map<std::string, bool> known_;
};

/// Whether an attribute file could apply a filter or an end-of-line conversion to `path`
/// (relative to root): then its blob id cannot be computed from the raw bytes here.
bool attributes_may_apply(const std::string& root, const std::string& common_dir,
                          const Config& config, const std::string& path, ExistsOnce& exists) {
  if (config.has("core.attributesfile") || config.has("core.eol") ||
      (config.has("core.autocrlf") && lower(config.values.at("core.autocrlf")) != "false"))
    return true;
  std::string xdg = xdg_config_home();
  if (!xdg.empty() && exists(xdg + "/git/attributes")) return true;
  if (exists(common_dir + "/info/attributes")) return true;
  for (std::size_t slash = 0;; ++slash) {
    std::string dir = path.substr(0, slash);
    if (exists(root + (dir.empty() ? "" : "/" + dir) + "/.gitattributes")) return true;
    slash = path.find('/', slash);
    if (slash == std::string::npos) return false;
  }
}

/// Whether `ie` is racily clean: its file written in the same instant as the index or after
/// it (git's is_racy_timestamp()), so that its stat data cannot vouch for the content.
bool racily_clean(const IndexEntry& ie, const struct timespec& index_mtime) {
  const auto sec = static_cast<std::uint32_t>(index_mtime.tv_sec);
  const auto nsec = static_cast<std::uint32_t>(index_mtime.tv_nsec);
  return ie.mtime_s > sec || (ie.mtime_s == sec && ie.mtime_ns >= nsec);
}

/// Whether `st` are the stat data `ie` was recorded with, compared as git stores them (32 bits
/// each); more fields than git compares by default, which can only send a file to hashing.
bool same_stat_data(const IndexEntry& ie, const struct stat& st) {
  auto u32 = [](auto v) { return static_cast<std::uint32_t>(v); };
  return ie.mtime_s == u32(st.st_mtim.tv_sec) && ie.mtime_ns == u32(st.st_mtim.tv_nsec) &&
         ie.ctime_s == u32(st.st_ctim.tv_sec) && ie.ctime_ns == u32(st.st_ctim.tv_nsec) &&
         ie.ino == u32(st.st_ino) && ie.dev == u32(st.st_dev) && ie.uid == u32(st.st_uid) &&
         ie.gid == u32(st.st_gid) && ie.size == u32(st.st_size);
}

/// True when the work-tree file differs from its index entry as `git status` would see it
/// without the assume-unchanged and skip-worktree flags (the caller handles a skip-worktree
/// file that is absent: entry_state()).
bool differs_from_index(const std::string& root, const std::string& common_dir,
                        const Config& config, const std::string& path, const IndexEntry& ie,
                        const struct timespec& index_mtime, ExistsOnce& exists) {
  if (ie.intent_to_add) return true;
  const std::uint32_t type = ie.mode & 0170000;
  if (type == 0160000) throw CannotTell{};  // a submodule
  const std::string full = root + "/" + path;
  struct stat st;
  if (::lstat(full.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return true;  // deleted
    throw CannotTell{};
  }
  const bool symlinks = config.flag("core.symlinks").value_or(true);
  if (type == 0120000 && !symlinks) throw CannotTell{};
  if (type == 0100000 && !S_ISREG(st.st_mode)) return true;
  if (type == 0120000 && !S_ISLNK(st.st_mode)) return true;
  if (type != 0100000 && type != 0120000) throw CannotTell{};
  if (type == 0100000 && config.flag("core.filemode").value_or(true) &&
      ((ie.mode & 0100) != 0) != ((st.st_mode & S_IXUSR) != 0))
    return true;
  const bool same_stat = same_stat_data(ie, st);
  if (same_stat && !racily_clean(ie, index_mtime) && ie.size != 0) return false;
  // A different size is a change (git does not hash then, ie_modified()), unless the index
  // size is 0 (racily smudged, or an empty file).
  if (ie.size != 0 && ie.size != static_cast<std::uint32_t>(st.st_size)) return true;
  std::string content;
  if (type == 0120000) {
    std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlink(full.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) throw CannotTell{};
    target.resize(static_cast<std::size_t>(n));
    content = std::move(target);
  } else {
    if (attributes_may_apply(root, common_dir, config, path, exists)) throw CannotTell{};
    std::optional<std::string> c = read_small_file(full, std::size_t{1} << 31);
    if (!c) return true;
    content = std::move(*c);
  }
  return git::blob_sha1(content) != ie.id;
}

/// What the work-tree file of the stage-0 entry `ie` holds against it. `git status` takes a
/// file flagged assume-unchanged (`git update-index --assume-unchanged`) or skip-worktree
/// (`--skip-worktree`, sparse checkouts) as unchanged without looking at it; the verdict reads
/// the file on disk, so it is compared here all the same. A skip-worktree file absent from the
/// work tree is `not_checked_out`, as git has it. Throws CannotTell where differs_from_index()
/// does.
git::EntryState entry_state(const std::string& root, const std::string& common_dir,
                            const Config& config, const std::string& path, const IndexEntry& ie,
                            const struct timespec& index_mtime, ExistsOnce& exists) {
  if (ie.skip_worktree && !ie.intent_to_add) {
    struct stat st;
    if (::lstat((root + "/" + path).c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return git::EntryState::not_checked_out;
      throw CannotTell{};
    }
  }
  return differs_from_index(root, common_dir, config, path, ie, index_mtime, exists)
             ? git::EntryState::dirty
             : git::EntryState::clean;
}

}  // namespace

namespace {

/// The git directory of the work tree at `root`: `.git` itself, or the one a `.git` file
/// names ("gitdir: PATH": worktrees, submodules); std::nullopt when there is neither.
std::optional<std::string> git_dir_of(const std::string& root) {
  std::string git_dir = root + "/.git";
  struct stat st;
  if (::lstat(git_dir.c_str(), &st) != 0) return std::nullopt;
  if (S_ISREG(st.st_mode)) {
    std::optional<std::string> text = read_small_file(git_dir, 4096);
    if (!text || text->rfind("gitdir:", 0) != 0) return std::nullopt;
    std::string to = trim(std::string_view(*text).substr(7));
    git_dir = !to.empty() && to[0] == '/' ? to : root + "/" + to;
  } else if (!S_ISDIR(st.st_mode)) {
    return std::nullopt;
  }
  return git_dir;
}

/// Whether `git_dir` holds a shared index (`sharedindex.*`: the index is, or was, split). Only
/// a hint: the index itself says whether it is split (its "link" extension, which the early
/// stop could pass over, so that a hint makes the readers walk the whole index).
bool has_shared_index(const std::string& git_dir) {
  bool found = false;
  if (DIR* dir = ::opendir(git_dir.c_str())) {
    while (dirent* e = ::readdir(dir))
      if (std::strncmp(e->d_name, "sharedindex.", 12) == 0) found = true;
    ::closedir(dir);
  }
  return found;
}

}  // namespace

bool work_tree_may_have_split_index(const std::string& root) {
  try {
    // Only the index's own "link" extension says so: a sharedindex.* file outlives the split
    // (`git update-index --no-split-index` leaves it, to expire after two weeks).
    const std::optional<std::string> git_dir = git_dir_of(root);
    return git_dir && git::check_index_file(*git_dir + "/index", false).split;
  } catch (...) {
    return false;
  }
}

std::optional<std::string> nested_work_tree_of(const std::string& root, const std::string& path) {
  for (std::size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    if (slash == 0) continue;
    struct stat st;
    const std::string dir = path.substr(0, slash);
    if (::lstat((root + "/" + dir + "/.git").c_str(), &st) == 0) return dir;
  }
  return std::nullopt;
}

bool work_tree_may_have_sparse_index(const std::string& root) {
  try {
    const std::optional<std::string> git_dir = git_dir_of(root);
    if (!git_dir) return false;
    std::string common_dir = *git_dir;
    if (std::optional<std::string> common = read_small_file(*git_dir + "/commondir", 4096)) {
      const std::string c = trim(*common);
      common_dir = !c.empty() && c[0] == '/' ? c : *git_dir + "/" + c;
    }
    // `git sparse-checkout` writes it to config.worktree (extensions.worktreeConfig), which
    // read_config() refuses (the work-tree reader then declines).
    Config config;
    config.read(common_dir + "/config");
    config.read(*git_dir + "/config.worktree");
    return config.flag("index.sparse").value_or(false);
  } catch (...) {
    return false;
  }
}

namespace {

/// A work tree's git directory (`.git` itself, or the one a `.git` file names: worktrees,
/// submodules), the common directory a worktree shares with its main repository, and the
/// configuration.
struct Repository {
  std::string git_dir, common_dir;
  Config config;
};

/// The repository of the work tree at `root` where the readers here read it as git does:
/// std::nullopt for none, a reftable, a bare repository, core.worktree, core.ignorecase,
/// another object format or ref storage. Throws CannotTell for what read_config() refuses.
std::optional<Repository> plain_repository(const std::string& root) {
  const std::optional<std::string> found = git_dir_of(root);
  if (!found) return std::nullopt;
  Repository repo{*found, *found, {}};
  if (std::optional<std::string> common = read_small_file(repo.git_dir + "/commondir", 4096)) {
    std::string c = trim(*common);
    repo.common_dir = !c.empty() && c[0] == '/' ? c : repo.git_dir + "/" + c;
  }
  if (exists(repo.common_dir + "/reftable")) return std::nullopt;
  repo.config = read_config(repo.common_dir, repo.git_dir);
  const Config& config = repo.config;
  if (config.flag("core.bare").value_or(false) || config.has("core.worktree") ||
      config.flag("core.ignorecase").value_or(false) || config.has("extensions.objectformat") ||
      config.has("extensions.refstorage"))
    return std::nullopt;
  return repo;
}

/// KnownBlobIds from index entries (index_blob_ids()).
class IndexBlobIds final : public KnownBlobIds {
 public:
  std::string id(const std::string& path, const struct stat& st) const override {
    auto it = entries.find(path);
    if (it == entries.end() || !S_ISREG(st.st_mode) || !same_stat_data(it->second, st)) return {};
    return it->second.id;
  }
  std::map<std::string, IndexEntry> entries;  ///< by path relative to the tree
};

}  // namespace

struct WorkTreeIndex::State {
  std::string root;
  Repository repo;
  /// The index, mapped when opened (`found` false: there is none); mutable for guarded().
  mutable Mapped index;
  bool found = false;
  /// searchable_end() of the index, found when opened; std::nullopt when it is walked.
  std::optional<TreeAtTheEnd> end;
};

WorkTreeIndex::WorkTreeIndex(std::unique_ptr<State> state) : state_(std::move(state)) {}
WorkTreeIndex::~WorkTreeIndex() = default;

std::shared_ptr<const WorkTreeIndex> open_work_tree_index(const std::string& root) {
  try {
    std::optional<Repository> repo = plain_repository(root);
    if (!repo) return nullptr;
    auto state = std::make_unique<WorkTreeIndex::State>();
    state->root = root;
    state->repo = std::move(*repo);
    state->found = state->index.open(state->repo.git_dir + "/index");
    if (state->found && state->index.size > 0) {
      Mapped& m = state->index;
      state->end = m.file->guarded(
          [](const unsigned char* d, std::size_t size) { return searchable_end(d, size); });
      if (m.file->shrank()) throw CannotTell{};
    }
    return std::make_shared<const WorkTreeIndex>(std::move(state));
  } catch (const CannotTell&) {
    return nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

namespace {

/// read_index() of the index `s` mapped when opened, its end as found then.
IndexScan read_opened_index(const WorkTreeIndex::State& s, const std::vector<std::string>& wanted,
                            bool may_stop) {
  Mapped& m = s.index;  // mutable: guarded() records a fault
  if (!s.found || m.size == 0) throw CannotTell{};  // no index yet: every file is untracked
  IndexScan out;
  out.index_mtime = m.st.st_mtim;
  IndexScan scan = m.file->guarded([&](const unsigned char* d, std::size_t size) {
    return read_index_mapped(d, size, wanted, may_stop, IndexRead::search, std::move(out), s.end);
  });
  if (m.file->shrank()) throw CannotTell{};
  return scan;
}

}  // namespace

std::shared_ptr<const KnownBlobIds> index_blob_ids(const std::string& root,
                                                   const std::string& prefix,
                                                   const std::vector<std::string>& paths) {
  const std::shared_ptr<const WorkTreeIndex> opened = open_work_tree_index(root);
  return opened ? index_blob_ids(*opened, prefix, paths) : nullptr;
}

std::shared_ptr<const KnownBlobIds> index_blob_ids(const WorkTreeIndex& opened,
                                                   const std::string& prefix,
                                                   const std::vector<std::string>& paths) {
  try {
    const WorkTreeIndex::State& s = opened.state();
    const std::string& root = s.root;
    const Repository& repo = s.repo;
    const Config& config = repo.config;
    // A split or sparse index holds entries elsewhere or as folders: not read here.
    if (config.flag("core.splitindex").value_or(false) ||
        config.flag("index.sparse").value_or(false) ||
        config.flag("core.sparsecheckout").value_or(false))
      return nullptr;
    // A sharedindex.* file may be left from an earlier split: the whole index is then walked,
    // which declines at a "link" extension.
    const bool may_stop = !has_shared_index(repo.git_dir);
    std::vector<std::string> wanted;
    for (const std::string& p : paths) wanted.push_back(prefix + p);
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    const IndexScan scan = read_opened_index(s, wanted, may_stop);
    auto ids = std::make_shared<IndexBlobIds>();
    ExistsOnce attribute_files;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      if (!scan.found[i] || scan.conflicted[i]) continue;
      const IndexEntry& ie = *scan.found[i];
      // A plain regular file the index describes in full, hashed before the index was written
      // (not racily clean), whose bytes no attribute or end-of-line rule may have filtered on
      // their way into the blob (git hashes the filtered content).
      if ((ie.mode & 0170000) != 0100000 || ie.skip_worktree || ie.assume_valid ||
          ie.intent_to_add || ie.size == 0 || racily_clean(ie, scan.index_mtime) ||
          attributes_may_apply(root, repo.common_dir, config, wanted[i], attribute_files))
        continue;
      ids->entries.emplace(wanted[i].substr(prefix.size()), ie);
    }
    if (ids->entries.empty()) return nullptr;
    return ids;
  } catch (const CannotTell&) {
    return nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::optional<RepositoryFacts> read_work_tree_facts(const std::string& root,
                                                    const std::vector<std::string>& paths) {
  const std::shared_ptr<const WorkTreeIndex> opened = open_work_tree_index(root);
  return opened ? read_work_tree_facts(*opened, paths) : std::nullopt;
}

std::optional<RepositoryFacts> read_work_tree_facts(const WorkTreeIndex& opened,
                                                    const std::vector<std::string>& paths) {
  try {
    const WorkTreeIndex::State& s = opened.state();
    const std::string& root = s.root;
    const Repository& repo = s.repo;
    const std::string& git_dir = repo.git_dir;
    const std::string& common_dir = repo.common_dir;
    const Config& config = repo.config;

    RepositoryFacts f;
    f.root = root;
    std::optional<std::string> head_text = read_small_file(git_dir + "/HEAD", 4096);
    if (!head_text) return std::nullopt;
    std::string head = trim(*head_text);
    if (head.rfind("ref:", 0) == 0) {
      std::string final_name;
      f.head = resolve_ref(git_dir, common_dir, trim(std::string_view(head).substr(4)), final_name);
      if (final_name.rfind("refs/heads/", 0) != 0) return std::nullopt;
      f.branch = final_name.substr(11);
    } else if (is_hex_id(head)) {
      f.head = head;
    } else {
      return std::nullopt;
    }
    if (paths.empty()) return f;
    if (f.head.empty()) return std::nullopt;  // unborn: every index entry is staged

    std::vector<std::string> wanted = paths;
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    // A split index ("link") or a sparse one ("sdir") is told by extensions the early stop
    // would not reach: it is taken only where neither can be.
    bool may_stop = !config.flag("core.splitindex").value_or(false) &&
                    !config.flag("index.sparse").value_or(false) &&
                    !config.flag("core.sparsecheckout").value_or(false);
    if (may_stop && has_shared_index(git_dir)) may_stop = false;
    const IndexScan scan = read_opened_index(s, wanted, may_stop);
    // The index against HEAD: the same tree as HEAD's when its cache tree is whole and names
    // HEAD's tree (what `git commit` and `git reset` leave); otherwise libgit2 compares them.
    if (!scan.root_tree || *scan.root_tree != commit_tree_id(common_dir, f.head))
      return std::nullopt;
    ExistsOnce attribute_files;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      const std::string& path = wanted[i];
      if (scan.conflicted[i]) {
        f.dirty.push_back(path);
        continue;
      }
      if (!scan.found[i]) {
        // Not in the index (so not in HEAD): clean when absent, untracked or ignored when
        // present, which needs the ignore rules.
        if (scan.is_dir[i]) return std::nullopt;
        if (struct stat st; ::lstat((root + "/" + path).c_str(), &st) == 0) return std::nullopt;
        if (errno != ENOENT && errno != ENOTDIR) return std::nullopt;
        continue;
      }
      switch (entry_state(root, common_dir, config, path, *scan.found[i], scan.index_mtime,
                          attribute_files)) {
        case git::EntryState::clean:
          break;
        case git::EntryState::dirty:
          f.dirty.push_back(path);
          break;
        case git::EntryState::not_checked_out:
          f.not_checked_out.push_back(path);
          break;
      }
    }
    return f;
  } catch (const CannotTell&) {
    return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

namespace git {

IndexFileCheck check_index_file(const std::string& path, bool hash) {
  IndexFileCheck out;
  try {
    Mapped m;
    if (!m.open(path)) return out;  // missing
    if (m.size == 0) return check_index_mapped(nullptr, 0, hash);
    out = m.file->guarded([&](const unsigned char* d, std::size_t size) {
      return check_index_mapped(d, size, hash);
    });
    if (m.file->shrank()) throw CannotTell{};
  } catch (...) {
    out = IndexFileCheck{};
    out.state = IndexFileCheck::State::refused;
    out.reason = "the index file cannot be read (changed while read?)";
  }
  return out;
}

std::string with_index_checksum(std::string_view data) {
  if (data.size() < 12 + 20) return {};
  std::string out(data);
  const std::size_t end = out.size() - 20;
  out.replace(end, 20, sha1_raw(reinterpret_cast<const unsigned char*>(out.data()), end));
  return out;
}

FlaggedEntries check_flagged_entries(const std::string& root, const std::string& index_path,
                                     const std::vector<std::string>& paths) {
  FlaggedEntries out;
  std::vector<std::string> wanted = paths;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  if (wanted.empty()) return out;
  const std::optional<IndexScan> scan = scan_index(index_path, wanted, false, IndexRead::walk);
  if (!scan) {
    out.unknown =
        "whether a touched file is flagged assume-unchanged or skip-worktree (which git status "
        "does not look at) cannot be told: the index is not read here; see git ls-files -v";
    return out;
  }
  std::optional<Repository> repo;
  ExistsOnce attribute_files;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    if (!scan->found[i] || scan->conflicted[i]) continue;
    const IndexEntry& ie = *scan->found[i];
    if (!ie.assume_valid && !ie.skip_worktree) continue;
    const std::string flag = ie.skip_worktree ? "skip-worktree" : "assume-unchanged";
    try {
      struct stat st;
      if (ie.skip_worktree && !ie.intent_to_add &&
          ::lstat((root + "/" + wanted[i]).c_str(), &st) != 0 &&
          (errno == ENOENT || errno == ENOTDIR)) {
        out.not_checked_out.push_back(wanted[i]);  // as entry_state() says, without the config
        continue;
      }
      if (!repo) repo = plain_repository(root);
      if (!repo) throw CannotTell{};
      switch (entry_state(root, repo->common_dir, repo->config, wanted[i], ie, scan->index_mtime,
                          attribute_files)) {
        case EntryState::clean:
          break;
        case EntryState::dirty:
          out.dirty.push_back(wanted[i]);
          break;
        case EntryState::not_checked_out:
          out.not_checked_out.push_back(wanted[i]);
          break;
      }
    } catch (const CannotTell&) {
      out.unknown = wanted[i] + " is flagged " + flag +
                    " (git status does not look at it) and whether the file differs from the "
                    "index cannot be told here; see git ls-files -v and git diff --no-index";
      return out;
    }
  }
  return out;
}

std::optional<IndexScan> scan_index(const std::string& path, const std::vector<std::string>& wanted,
                                    bool may_stop, IndexRead how) {
  try {
    return read_index(path, wanted, may_stop, how);
  } catch (const CannotTell&) {
    return std::nullopt;
  }
}

}  // namespace git
}  // namespace sm120check
