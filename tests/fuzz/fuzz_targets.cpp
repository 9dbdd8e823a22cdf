// The fuzz entry points of fuzz_targets.hpp.
#include "fuzz_targets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "sm120check/apply.hpp"
#include "sm120check/arch.hpp"
#include "sm120check/error.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/kernels.hpp"
#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/report.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"

namespace sm120check::fuzz {
namespace {

void require(bool holds, std::string_view what) {
  if (!holds) throw InvariantBroken(std::string(what));
}

/// parse_patches(), with a refusal (Error) as std::nullopt.
std::optional<std::vector<Patch>> parse(std::string_view text) {
  try {
    return parse_patches(text, "fuzz");
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// Regular files held in memory; a directory exists where a file lies below it.
class MemoryTree final : public Tree {
 public:
  void file(const std::string& path, std::string content) { files_[path] = std::move(content); }
  std::string name() const override { return "fuzz"; }
  Entry stat(const std::string& path) const override {
    if (auto it = files_.find(path); it != files_.end())
      return {Entry::Type::kFile, false, it->second.size()};
    const std::string dir = path + "/";
    auto below = files_.lower_bound(dir);
    if (below != files_.end() && below->first.starts_with(dir)) return {Entry::Type::kDirectory};
    return {};
  }
  std::string read(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) throw Error(path, 0, "not a file");
    return it->second;
  }
  std::string read_link(const std::string& path) const override {
    throw Error(path, 0, "not a symlink");
  }

 private:
  std::map<std::string, std::string> files_;
};

/// A tree input split as kPatchSeparator says.
struct TreeInput {
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
  bool strict = false;
  bool reverse = false;
  bool independent = false;
  bool color = false;
  std::string_view file;
  std::string_view patch;
};

TreeInput split_tree_input(std::string_view input) {
  TreeInput in;
  if (input.empty()) return in;
  const unsigned options = static_cast<unsigned char>(input.front()) ^ 0x40u;
  input.remove_prefix(1);
  in.fuzz = options & 3u;
  in.ignore_whitespace = (options & 4u) != 0;
  in.strict = (options & 8u) != 0;
  in.reverse = (options & 16u) != 0;
  in.independent = (options & 32u) != 0;
  in.color = (options & 64u) != 0;
  const std::size_t at = input.find(kPatchSeparator);
  if (at == std::string_view::npos) {
    in.patch = input;
  } else {
    in.file = input.substr(0, at);
    in.patch = input.substr(at + kPatchSeparator.size());
  }
  return in;
}

VerifyOptions verify_options(const TreeInput& in) {
  VerifyOptions options;
  options.match.fuzz = in.fuzz;
  options.match.ignore_whitespace = in.ignore_whitespace;
  options.match.drift = !in.strict;
  options.series = !in.independent;
  return options;
}

/// A tree holding the input's file at every old path (strip 1) of the patches' file patches.
MemoryTree tree_of(const TreeInput& in, const std::vector<Patch>& patches) {
  MemoryTree tree;
  for (const Patch& p : patches) {
    for (const FilePatch& f : p.files) {
      if (f.old_path == "/dev/null") continue;
      const std::optional<std::string> stripped = strip_path(f.old_path, 1);
      if (!stripped) continue;
      if (std::optional<std::string> path = normalize_relative_path(*stripped))
        tree.file(*path, std::string(in.file));
    }
  }
  return tree;
}

/// Matches, applies both ways and undoes one file patch's hunks on `file`.
void match_and_apply(const FileText& file, const FilePatch& fp, const MatchOptions& options) {
  const std::vector<HunkMatch> matches = match_hunks(file, fp.hunks, options);
  require(matches.size() == fp.hunks.size(), "match_hunks: one HunkMatch per hunk");
  for (const HunkMatch& m : matches) {
    const bool placed = m.kind == MatchKind::kExact || m.kind == MatchKind::kFuzz;
    if (placed) {
      require(m.status == HunkStatus::kApplied || m.status == HunkStatus::kApplicable,
              "match_hunks: an exact or fuzz match is applied or applicable");
      require(m.image_begin <= m.image_end && m.image_end <= file.size(),
              "match_hunks: image lines within the file");
      require(m.line >= 1, "match_hunks: a match has a 1-based line");
    } else {
      require(m.image_begin == 0 && m.image_end == 0, "match_hunks: no image lines unplaced");
    }
    if (m.status == HunkStatus::kConflict) require(m.line == 0, "match_hunks: conflict at line 0");
    require(m.places.size() <= kMaxPlaces, "match_hunks: at most kMaxPlaces places");
    require(m.fuzz <= options.fuzz, "match_hunks: fuzz within the option");
  }
  for (const Direction direction : {Direction::kForward, Direction::kReverse}) {
    const HunkApply result =
        apply_hunks(file, fp.hunks, matches, direction, options.ignore_whitespace);
    std::vector<std::size_t> seen;
    for (const auto* list : {&result.written, &result.already, &result.failed})
      seen.insert(seen.end(), list->begin(), list->end());
    std::sort(seen.begin(), seen.end());
    bool each_once = seen.size() == fp.hunks.size();
    for (std::size_t i = 0; each_once && i < seen.size(); ++i) each_once = seen[i] == i;
    require(each_once, "apply_hunks: every hunk written, already or failed, once");
    require(result.splices.size() == result.written.size(), "apply_hunks: a splice per write");
    require(undo_splices(result.content, result.splices) == file.content(),
            "apply_hunks: undo_splices gives the file back");
  }
}

/// Whether some hunk of `report` matched both images (HunkMatch::both_images).
bool both_images(const VerifyReport& report) {
  for (const PatchReport& p : report.patches)
    for (const FileReport& f : p.files)
      for (const HunkReport& h : f.hunks)
        if (h.match.both_images) return true;
  return false;
}

/// Writes `plan`'s changes into `tree` (as write_changes() would on disk).
void check_ranges(const ArchTargets& t) {
  for (std::size_t i = 0; i < t.ranges.size(); ++i) {
    require(!t.ranges[i].empty(), "arch: no empty range");
    if (i > 0) require(t.ranges[i - 1].hi < t.ranges[i].lo, "arch: ranges sorted, apart");
  }
  if (!t.ranges.empty()) require(!t.names().empty(), "arch: names for targets");
}

/// No byte below 0x20 but "\n" (and ESC only with colour): what reaches a terminal.
void require_terminal_safe(std::string_view text, bool color, std::string_view what) {
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    require(b >= 0x20 || b == '\n' || (color && b == 0x1b), what);
  }
}

/// dump() of a document must not throw and must parse back to the same document.
void require_round_trip(const nlohmann::ordered_json& doc, std::string_view what) {
  const std::string text = doc.dump(2);
  require(nlohmann::ordered_json::parse(text) == doc, what);
}

}  // namespace

void parse_one(std::string_view input) {
  const std::optional<std::vector<Patch>> patches = parse(input);
  if (!patches) return;
  require(!patches->empty(), "parse_patches: a parse that succeeds finds a patch");
  for (const Patch& p : *patches) {
    for (const FilePatch& f : p.files) {
      require(f.patch_line >= p.patch_line, "parse_patches: a file patch starts in its patch");
      for (const Hunk& h : f.hunks) {
        std::size_t old_lines = 0, new_lines = 0;
        for (const HunkLine& l : h.lines) {
          old_lines += l.kind != LineKind::kAdded ? 1 : 0;
          new_lines += l.kind != LineKind::kRemoved ? 1 : 0;
          require(l.text.find('\n') == std::string::npos, "parse_patches: a line has no \\n");
        }
        require(old_lines == h.old_lines && new_lines == h.new_lines,
                "parse_patches: hunk body agrees with its header");
        require(!h.lines.empty(), "parse_patches: a hunk has lines");
        require(h.patch_line > f.patch_line, "parse_patches: a hunk follows its file header");
      }
      for (const std::string* path : {&f.old_path, &f.new_path}) {
        for (unsigned strip = 0; strip < 3; ++strip) {
          if (const std::optional<std::string> s = strip_path(*path, strip))
            (void)normalize_relative_path(*s);
        }
      }
    }
  }
}

void apply_one(std::string_view input) {
  const TreeInput in = split_tree_input(input);
  const std::optional<std::vector<Patch>> patches = parse(in.patch);
  if (!patches) return;
  const VerifyOptions options = verify_options(in);
  const FileText file{std::string(in.file)};
  std::size_t file_patches = 0;
  for (const FilePatch& fp : patches->front().files) {
    if (++file_patches > 8) break;
    match_and_apply(file, fp, options.match);
  }
  const MemoryTree tree = tree_of(in, *patches);
  const VerifyReport report = verify(*patches, tree, options);
  require(report.patches.size() == patches->size(), "verify: a report per patch");
  const Direction direction = in.reverse ? Direction::kReverse : Direction::kForward;
  const ApplyPlan plan = plan_apply(*patches, tree, options, direction);
  const std::optional<unsigned> strip = plan.report.common_strip();
  if (!plan.blockers.empty() || plan.changes.empty() || !strip || both_images(plan.report))
    return;
  // Planning again on the result gives no changes (plan_apply()), at the same strip level.
  // Not where a hunk's two images both stood (the tie rule chose one): a file holding the
  // code before and after a change twice over gives another choice once one copy changed,
  // as `git apply -R` run twice takes out two copies.
  OverlayTree after(tree);
  write_plan(plan, after);
  VerifyOptions again_options = options;
  again_options.strip = strip;
  const ApplyPlan again = plan_apply(*patches, after, again_options, direction);
  require(again.changes.empty(), "plan_apply: a written plan plans no further change");
  require(again.blockers.empty(), "plan_apply: a written plan plans no blocker");
}

void render_one(std::string_view input) {
  const TreeInput in = split_tree_input(input);
  const std::optional<std::vector<Patch>> patches = parse(in.patch);
  if (!patches) return;
  const MemoryTree tree = tree_of(in, *patches);
  VerifyReport report = verify(*patches, tree, verify_options(in));
  assess_arch(report, *patches, override_gpu({12, 0}), in.reverse);
  std::ostringstream text;
  render_verify_text(text, report, in.color);
  require_terminal_safe(text.str(), in.color, "render_verify_text: terminal-safe");
  require_round_trip(verify_to_json(report), "verify_to_json: dump parses back");
  std::ostringstream show;
  render_show_text(show, *patches, in.color);
  require_terminal_safe(show.str(), in.color, "render_show_text: terminal-safe");
  require_round_trip(show_to_json(*patches), "show_to_json: dump parses back");
  require_terminal_safe(escape_for_terminal(in.patch), false, "escape_for_terminal: no control");
  require_round_trip(nlohmann::ordered_json(sanitize_utf8(in.file)), "sanitize_utf8: valid UTF-8");
}

void arch_one(std::string_view input) {
  std::optional<std::vector<Patch>> patches = parse(input);
  if (!patches) {
    // Not a patch: the input's lines as the body of one hunk ('+' added, '-' removed, else
    // context) of a file whose kind the first byte chooses.
    static constexpr std::string_view kPaths[] = {"a/k.cu", "a/CMakeLists.txt", "a/k.py",
                                                  "a/README.md", "a/tests/t.py", "a/k.h"};
    Patch p;
    FilePatch f;
    const auto pick = input.empty() ? 0u : static_cast<unsigned char>(input.front());
    f.old_path = f.new_path = std::string(kPaths[pick % std::size(kPaths)]);
    Hunk h;
    h.old_start = h.new_start = 1;
    for (std::size_t at = 0; at < input.size();) {
      const std::size_t end = std::min(input.find('\n', at), input.size());
      const std::string_view line = input.substr(at, end - at);
      HunkLine l;
      l.kind = line.starts_with('+')   ? LineKind::kAdded
               : line.starts_with('-') ? LineKind::kRemoved
                                       : LineKind::kContext;
      l.text = line.substr(line.empty() ? 0 : 1);  // a view into `input`, which outlives it
      h.old_lines += l.kind != LineKind::kAdded ? 1 : 0;
      h.new_lines += l.kind != LineKind::kRemoved ? 1 : 0;
      h.lines.push_back(std::move(l));
      at = end + 1;
    }
    f.hunks.push_back(std::move(h));
    p.files.push_back(std::move(f));
    p.message = std::string(input.substr(0, std::min<std::size_t>(input.size(), 256)));
    patches.emplace().push_back(std::move(p));
  }
  for (const Patch& p : *patches) {
    for (unsigned strip = 0; strip < 3; ++strip) {
      const ArchTargets t = infer_arch_targets(p, strip);
      check_ranges(t);
      require(t.empty() == (t.source == ArchSource::kNone), "arch: a source iff targets");
      for (const ComputeCapability cc : {ComputeCapability{12, 0}, ComputeCapability{9, 0}})
        (void)arch_relevant(t, override_gpu(cc));
    }
    check_ranges(parse_arch_trailer(p.message));
  }
  for (std::size_t at = 0; at < input.size();) {
    const std::size_t end = std::min(input.find('\n', at), input.size());
    const std::string_view line = input.substr(at, end - at);
    for (const LineSyntax s :
         {LineSyntax::kPlain, LineSyntax::kHash, LineSyntax::kCFamily, LineSyntax::kProse}) {
      const LineArch a = arch_in_line(line, s);
      check_ranges(a.code);
      check_ranges(a.text);
    }
    check_ranges(targets_in_line(line));
    at = end + 1;
  }
}

void kernels_one(std::string_view input) {
  const std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(input.data()),
                                             input.size());
  KernelsReport report;
  report.files.push_back(list_kernels_in_memory(bytes, "fuzz"));
  report.files_examined = 1;
  const KernelListing& listing = report.files.back();
  // A bare cubin or PTX file (nvcc -cubin / -ptx) is one entry, the whole file, in no fat
  // binary: its own rules.
  const bool bare = listing.fatbins.size() == 1 && (listing.fatbins[0].section == "cubin" ||
                                                    listing.fatbins[0].section == "ptx");
  if (bare) {
    const FatBinary& f = listing.fatbins[0];
    require(f.offset == 0 && f.entries.size() == 1, "a bare file is one entry");
    require(f.entries[0].offset == 0 && f.entries[0].payload_offset == 0 &&
                f.entries[0].size <= input.size(),
            "a bare file's entry is the file");
  }
  require(bare || listing.entry_count() <= input.size() / 64, "at most one entry per 64 bytes");
  for (const FatBinary& f : listing.fatbins) {
    if (bare) break;
    // A cubin embedded as data (an EM_CUDA ELF in a data section, or in the bytes of a file
    // without sections) is one entry of its own, starting where it is found: no fat binary header.
    if (f.section == "embedded" && f.entries.size() == 1 && f.entries[0].offset == f.offset) {
      const KernelEntry& e = f.entries[0];
      require(e.payload_offset == f.offset && f.offset < input.size() &&
                  e.size <= input.size() - f.offset,
              "an embedded cubin is its own entry, inside the input");
      continue;
    }
    require(f.offset + 16 <= input.size(), "a fat binary header lies inside the input");
    for (const KernelEntry& e : f.entries) {
      require(e.offset >= f.offset + 16 && e.payload_offset >= e.offset + 64,
              "an entry follows its fat binary's header, its payload its own header");
      require(e.payload_offset <= input.size() && e.size <= input.size() - e.payload_offset,
              "an entry's payload lies inside the input");
    }
  }
  // What a fat-binary section holds is never listed again as embedded data: the embedded
  // search skips those sections' bytes.
  std::vector<std::uint64_t> registered;
  for (const FatBinary& f : listing.fatbins)
    if (f.section == ".nv_fatbin" || f.section == "__nv_relfatbin")
      for (const KernelEntry& e : f.entries) registered.push_back(e.offset);
  std::sort(registered.begin(), registered.end());
  for (const FatBinary& f : listing.fatbins)
    if (f.section == "embedded")
      for (const KernelEntry& e : f.entries)
        require(!std::binary_search(registered.begin(), registered.end(), e.offset),
                "an entry of a fat-binary section is not listed again as embedded");
  report.capabilities = {{9, 0}, {12, 0}, {12, 1}};
  report.gpu_source = "override";
  std::vector<FileFit> fits;
  for (const ComputeCapability& cc : report.capabilities) {
    fits.push_back(file_fit(listing, cc));
    require(fits.back().not_compared <= fits.back().judged.size(),
            "modules not compared are judged modules");
    for (const auto& [index, module] : fits.back().judged)
      require(index < listing.fatbins.size() &&
                  (module.entry < 0 ||
                   static_cast<std::size_t>(module.entry) < listing.fatbins[index].entries.size()),
              "a judged module and its entry exist");
  }
  report.fits.push_back(std::move(fits));
  std::ostringstream text;
  render_kernels_text(text, report, false, true);
  for (char c : text.str())
    require(c == '\n' || static_cast<unsigned char>(c) >= 0x20, "no control byte in text output");
  const std::string dumped = kernels_document(report, kernels_exit_code(report)).dump();
  require(!nlohmann::json::parse(dumped).is_discarded(), "the JSON document parses back");
}

}  // namespace sm120check::fuzz
