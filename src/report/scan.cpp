// Rendering of `scan` results and of the catalog (`scan --list`): text for people, JSON for
// scripts (docs/json.md, "sm120check.scan/1" and "sm120check.catalog/1").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <string>

#include "sm120check/report.hpp"
#include "words.hpp"

namespace sm120check {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kRed = "\x1b[31m";
constexpr std::string_view kGreen = "\x1b[32m";
constexpr std::string_view kMagenta = "\x1b[35m";
constexpr std::string_view kCyan = "\x1b[36m";

std::string paint(std::string_view text, std::string_view sgr, bool color) {
  if (!color) return std::string(text);
  return fmt::format("{}{}{}", sgr, text, kReset);
}

std::string_view verdict_color(FixVerdict v) {
  switch (v) {
    case FixVerdict::kPresent:
      return kGreen;
    case FixVerdict::kMissing:
      return kRed;
    case FixVerdict::kUnknown:
      return kMagenta;
    case FixVerdict::kNotInstalled:
      return kCyan;
  }
  return {};
}

/// Evidence lines shown per fix; the rest are counted.
constexpr std::size_t kMaxEvidenceLines = 10;

std::string relevance_text(const FixResult& f) {
  if (!f.relevant) return "unknown (no GPU known)";
  return *f.relevant ? "yes" : "no";
}

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

/// "flashinfer-python 0.5.0 (distribution, venv/lib/python3.11/site-packages)".
std::string install_title(const Install& i) {
  std::string name = !i.distribution.empty() ? i.distribution : join(i.projects);
  if (!i.version.empty()) name += " " + i.version;
  if (i.version.empty() && !i.metadata_versions.empty()) {
    std::vector<std::string> shown;
    for (const std::string& v : i.metadata_versions) {
      const std::string text = v.empty() ? "no version" : v;
      if (std::find(shown.begin(), shown.end(), text) == shown.end()) shown.push_back(text);
    }
    name += " (version ambiguous: " + join(shown, " or ") + ")";
  }
  std::string where = std::string(to_string(i.kind)) + ", " + i.root;
  if (i.outside_target) where += ", outside TARGET";
  return escape_for_terminal(fmt::format("{} ({})", name, where));
}

void render_fix(std::ostream& out, const ScanReport& report, const FixResult& f, bool color) {
  const CatalogEntry& e = report.catalog.entries[f.entry];
  const std::string verdict = std::string(to_string(f.verdict));
  out << "  " << paint(verdict, verdict_color(f.verdict), color)
      << std::string(std::max<std::size_t>(1, 9 - verdict.size()), ' ')
      << escape_for_terminal(e.id) << ": " << escape_for_terminal(e.title) << "  ["
      << join(e.compute_capabilities) << ", relevant: " << relevance_text(f)
      << (f.skipped ? ", skipped: --only-relevant" : "") << "]\n";
  if (f.verdict != FixVerdict::kPresent) out << "      " << escape_for_terminal(f.why) << "\n";
  // Each evidence line once (a line may hold several markers), in path and line order.
  std::vector<const SearchHit*> lines;
  std::size_t more = 0;
  for (const MarkerFinding& m : f.markers) {
    for (const SearchHit& h : m.hits) lines.push_back(&h);
    more += m.total - std::min(m.total, m.hits.size());
  }
  std::sort(lines.begin(), lines.end(), [](const SearchHit* a, const SearchHit* b) {
    return a->path != b->path ? a->path < b->path : a->line < b->line;
  });
  lines.erase(std::unique(lines.begin(), lines.end(),
                          [](const SearchHit* a, const SearchHit* b) {
                            return a->path == b->path && a->line == b->line;
                          }),
              lines.end());
  const std::size_t shown = std::min(lines.size(), kMaxEvidenceLines);
  for (std::size_t i = 0; i < shown; ++i)
    out << "      " << escape_for_terminal(lines[i]->path) << ":" << lines[i]->line << ": "
        << escape_for_terminal(lines[i]->text) << "\n";
  more += lines.size() - shown;
  if (more != 0) out << fmt::format("      ... {} more hit{}\n", more, more == 1 ? "" : "s");
}

ordered_json marker_json(const MarkerFinding& m) {
  ordered_json j;
  j["kind"] = m.fixed ? "fixed" : "unfixed";
  j["text"] = sanitize_utf8(m.marker.text);
  j["regex"] = m.marker.regex;
  j["found"] = m.total > 0;
  j["in_absent_file"] = m.in_absent_file;
  j["comment"] = m.marker.comment;
  j["hit_count"] = m.total;
  j["error_lines"] = m.error_lines;
  const auto hits_json = [](const std::vector<SearchHit>& list) {
    ordered_json hits = ordered_json::array();
    for (const SearchHit& h : list)
      hits.push_back(
          {{"path", sanitize_utf8(h.path)}, {"line", h.line}, {"text", sanitize_utf8(h.text)}});
    return hits;
  };
  j["hits"] = hits_json(m.hits);
  j["comment_hit_count"] = m.comment_total;
  j["comment_hits"] = hits_json(m.comment_hits);
  return j;
}

ordered_json strings_json(const std::vector<std::string>& items) {
  ordered_json a = ordered_json::array();
  for (const std::string& s : items) a.push_back(sanitize_utf8(s));
  return a;
}

ordered_json upstream_json(const CatalogUpstream& u) {
  ordered_json j;
  j["repository"] = u.repository;
  j["pr"] = u.pr ? ordered_json(*u.pr) : ordered_json(nullptr);
  j["commit"] = u.commit ? ordered_json(*u.commit) : ordered_json(nullptr);
  j["merged"] = u.merged ? ordered_json(*u.merged) : ordered_json(nullptr);
  j["state"] = u.state;
  return j;
}

ordered_json fix_json(const ScanReport& report, const FixResult& f) {
  const CatalogEntry& e = report.catalog.entries[f.entry];
  ordered_json j;
  j["id"] = e.id;
  j["project"] = e.project;
  j["title"] = sanitize_utf8(e.title);
  j["upstream"] = upstream_json(e.upstream);
  j["compute_capabilities"] = strings_json(e.compute_capabilities);
  j["relevant"] = f.relevant ? ordered_json(*f.relevant) : ordered_json(nullptr);
  j["skipped"] = f.skipped;
  j["verdict"] = to_string(f.verdict);
  j["why"] = sanitize_utf8(f.why);
  j["symptom"] = sanitize_utf8(e.symptom);
  j["looked_for"] = strings_json(f.looked_for);
  j["files"] = strings_json(f.files);
  j["absent_files"] = strings_json(f.absent_files);
  ordered_json markers = ordered_json::array();
  for (const MarkerFinding& m : f.markers) markers.push_back(marker_json(m));
  j["markers"] = std::move(markers);
  return j;
}

ordered_json null_or(const std::string& s) {
  return s.empty() ? ordered_json(nullptr) : ordered_json(sanitize_utf8(s));
}

// ---------------------------------------------------------------------------------------------
// Kernels.

/// Object lines shown per kernel group; the rest are counted.
constexpr std::size_t kMaxObjectLines = 20;

/// What the GPU makes of an object's code, in the report's words (the group summaries).
std::string_view fit_words(KernelFit fit) {
  switch (fit) {
    case KernelFit::kExact:
      return "runs natively";
    case KernelFit::kCompatible:
      return "compatible cubin";
    case KernelFit::kPtxJit:
      return "needs PTX JIT";
    case KernelFit::kPartial:
      return "some kernels without an image";
    case KernelFit::kNone:
      break;
  }
  return "no kernel image";
}

std::string_view fit_sgr(KernelFit fit) {
  switch (fit) {
    case KernelFit::kExact:
    case KernelFit::kCompatible:
      return kGreen;
    case KernelFit::kPtxJit:
      return kMagenta;
    case KernelFit::kPartial:
    case KernelFit::kNone:
      break;
  }
  return kRed;
}

/// An object's judgement for one capability: fit_words(), "PTX JIT only" when every module
/// with an image has only PTX, and how many modules have no image when some others have.
std::string object_fit_text(const FileFit& fit, bool color) {
  if (fit.not_judged) return paint("not judged (read in part)", kRed, color);
  if (fit.judged.empty()) return "nothing to run";
  const auto count = [&](KernelFit f) { return fit.modules[static_cast<std::size_t>(f)]; };
  const std::size_t total = fit.judged.size();
  const std::size_t with_image = total - count(KernelFit::kNone);
  std::string words(fit_words(fit.fit));
  if (fit.fit == KernelFit::kPtxJit)
    words = count(KernelFit::kPtxJit) == with_image
                ? "PTX JIT only"
                : fmt::format("needs PTX JIT ({} of {} modules)", count(KernelFit::kPtxJit), total);
  std::string out = paint(words, fit_sgr(fit.fit), color);
  if (fit.fit != KernelFit::kNone && count(KernelFit::kNone) != 0)
    out += fmt::format(" ({} of {} modules without an image)", count(KernelFit::kNone), total);
  return out;
}

/// Counts of one group's objects per judgement for capability `c` (index into the report's
/// capabilities): KernelFit values 0-4, then 5 for nothing to run.
std::array<std::size_t, 6> fit_counts(const KernelGroup& g, std::size_t c) {
  std::array<std::size_t, 6> n{};
  for (std::size_t i = 0; i < g.objects.size(); ++i) {
    if (g.objects[i].fatbins.empty() || i >= g.fits.size() || c >= g.fits[i].size()) continue;
    const FileFit& fit = g.fits[i][c];
    if (fit.not_judged) continue;  // read in part: its error is counted instead
    ++n[fit.judged.empty() ? 5 : static_cast<std::size_t>(fit.fit)];
  }
  return n;
}

/// Objects of a group that carry CUDA code.
std::size_t with_code(const KernelGroup& g) {
  return static_cast<std::size_t>(std::count_if(g.objects.begin(), g.objects.end(),
                                                [](const KernelListing& o) { return !o.fatbins.empty(); }));
}

/// Whether a group is reported: the kernels of an install reported, or objects with CUDA code
/// or errors.
bool shown_group(const KernelGroup& g) { return g.install.has_value() || !g.objects.empty(); }

/// `path` relative to `root` when below it (root "." is TARGET), else as it is.
std::string relative_to(const std::string& path, const std::string& root) {
  if (root == ".") return path;
  if (path.size() > root.size() + 1 && path.compare(0, root.size(), root) == 0 &&
      path[root.size()] == '/')
    return path.substr(root.size() + 1);
  return path;
}

/// What object `i` of `g` holds and how it runs: "sm_90, sm_120  -> 12.0: runs natively (...)",
/// or "error: WHY" for an object with no fat binary read.
std::string object_text(const ScanReport& report, const KernelGroup& g, std::size_t i,
                        bool color) {
  const std::vector<ComputeCapability>& ccs = report.kernels.capabilities;
  const KernelListing& o = g.objects[i];
  if (o.fatbins.empty()) return paint("error", kRed, color) + ": " + escape_for_terminal(o.error);
  std::string out = kernel_architectures_text(o);
  for (std::size_t c = 0; c < ccs.size() && i < g.fits.size() && c < g.fits[i].size(); ++c)
    out += (c == 0 ? "  -> " : "; ") + ccs[c].to_string() + ": " +
           object_fit_text(g.fits[i][c], color);
  if (!o.error.empty())
    out += " (" + paint("error", kRed, color) + ": " + escape_for_terminal(o.error) + ")";
  return out;
}

void render_kernel_group(std::ostream& out, const ScanReport& report, const KernelGroup& g,
                         bool color) {
  const std::vector<ComputeCapability>& ccs = report.kernels.capabilities;
  const std::size_t code = with_code(g);
  out << "  kernels: ";
  if (g.shared_objects == 0)
    out << "no shared object";
  else
    out << fmt::format("{} of {} shared object{} with CUDA code", code, g.shared_objects,
                       g.shared_objects == 1 ? "" : "s");
  out << " (" << (g.source == ObjectSource::kRecord ? "listed in RECORD"
                  : g.source == ObjectSource::kPackageFolders
                      ? (g.kind == InstallKind::kDistribution
                             ? "package folders, no RECORD"
                             : "its package folders only: a source outside TARGET")
                      : "build outputs under the tree");
  if (g.absent != 0) out << fmt::format("; {} listed there but absent", g.absent);
  out << ")";
  if (code != 0 && ccs.empty()) out << "; not judged: no GPU known (--cc 12.0 judges)";
  for (std::size_t c = 0; c < ccs.size() && code != 0; ++c) {
    const std::array<std::size_t, 6> n = fit_counts(g, c);
    std::string parts;
    for (std::size_t f = 0; f < 6; ++f) {
      if (n[f] == 0) continue;
      std::string words = f == 5 ? "nothing to run" : std::string(fit_words(static_cast<KernelFit>(f)));
      if (n[f] != 1 && words == "runs natively") words = "run natively";
      if (n[f] != 1 && words == "needs PTX JIT") words = "need PTX JIT";
      if (f != 5) words = paint(words, fit_sgr(static_cast<KernelFit>(f)), color);
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n[f], words);
    }
    out << (c == 0 ? "; " : ", ") << ccs[c].to_string() << ": " << parts;
  }
  out << "\n";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < g.objects.size(); ++i) {
    if (shown == kMaxObjectLines) {
      out << fmt::format("    ... {} more (--format json lists every object)\n",
                         g.objects.size() - shown);
      break;
    }
    ++shown;
    out << "    " << escape_for_terminal(relative_to(g.objects[i].path, g.root)) << ": "
        << object_text(report, g, i, color) << "\n";
  }
}

/// "torch 2.9.0 (distribution, venv/lib/python3.11/site-packages)" for a group of no install.
std::string group_title(const KernelGroup& g) {
  Install i;
  i.kind = g.kind;
  i.distribution = g.distribution;
  i.projects = g.projects;
  i.version = g.version;
  i.root = g.root;
  i.outside_target = g.outside_target;
  return install_title(i);
}

ordered_json fit_counts_json(const KernelGroup& g, const std::vector<ComputeCapability>& ccs) {
  ordered_json out = ordered_json::array();
  for (std::size_t c = 0; c < ccs.size(); ++c) {
    const std::array<std::size_t, 6> n = fit_counts(g, c);
    ordered_json j;
    j["cc"] = ccs[c].to_string();
    for (std::size_t f = 0; f < 5; ++f) j[std::string(to_string(static_cast<KernelFit>(f)))] = n[f];
    j["nothing_to_run"] = n[5];
    out.push_back(std::move(j));
  }
  return out;
}

ordered_json kernels_json(const ScanReport& report) {
  if (!report.kernels_listed) return nullptr;
  const ScanKernels& k = report.kernels;
  ordered_json out;
  ordered_json ccs = ordered_json::array();
  for (const ComputeCapability& cc : k.capabilities) ccs.push_back(cc.to_string());
  out["capabilities"] = std::move(ccs);
  out["driver_version"] = k.driver_cuda_version > 0
                              ? ordered_json(cuda_version_string(k.driver_cuda_version))
                              : ordered_json(nullptr);
  out["shared_objects"] = k.shared_objects;
  out["with_cuda_code"] = k.with_cuda_code;
  ordered_json groups = ordered_json::array();
  for (const KernelGroup& g : k.groups) {
    if (!shown_group(g)) continue;
    ordered_json j;
    j["kind"] = to_string(g.kind);
    j["distribution"] = null_or(g.distribution);
    j["version"] = null_or(g.version);
    j["projects"] = strings_json(g.projects);
    j["root"] = sanitize_utf8(g.root);
    j["outside_target"] = g.outside_target;
    j["source"] = to_string(g.source);
    j["install"] = g.install ? ordered_json(*g.install) : ordered_json(nullptr);
    j["shared_objects"] = g.shared_objects;
    j["absent"] = g.absent;
    j["with_cuda_code"] = with_code(g);
    j["judged"] = fit_counts_json(g, k.capabilities);
    ordered_json files = ordered_json::array();
    for (std::size_t i = 0; i < g.objects.size(); ++i)
      files.push_back(kernel_file_to_json(g.objects[i], i < g.fits.size() ? g.fits[i]
                                                                          : std::vector<FileFit>{}));
    j["files"] = std::move(files);
    groups.push_back(std::move(j));
  }
  out["groups"] = std::move(groups);
  return out;
}

/// Index of the shown kernel group of install `install` in the document's kernels.groups.
std::optional<std::size_t> group_of(const ScanReport& report, std::size_t install) {
  std::size_t index = 0;
  for (const KernelGroup& g : report.kernels.groups) {
    if (!shown_group(g)) continue;
    if (g.install == install) return index;
    ++index;
  }
  return std::nullopt;
}

/// The summary line (no newline): fixes per verdict, kernel problems, an incomplete walk, and
/// the exit code.
std::string summary_text(const ScanReport& report, bool color) {
  const ScanSummary s = report.summary();
  const WalkStats& w = report.walk;
  std::ostringstream out;
  const std::size_t judged = s.present + s.missing + s.unknown;
  out << fmt::format("summary: {} fix{} in {} install{}: {} {}, {} {}, {} {}; {} not installed",
                     judged, judged == 1 ? "" : "es", report.installs.size(),
                     report.installs.size() == 1 ? "" : "s", s.present,
                     paint("present", kGreen, color), s.missing, paint("missing", kRed, color),
                     s.unknown, paint("unknown", kMagenta, color), report.not_installed.size());
  if (s.skipped != 0) out << fmt::format(", {} skipped (--only-relevant)", s.skipped);
  if (s.kernel_no_image != 0)
    out << fmt::format("; {} shared object{} with {}", s.kernel_no_image,
                       s.kernel_no_image == 1 ? "" : "s", paint("no kernel image", kRed, color));
  if (s.kernel_partial != 0)
    out << fmt::format("; {} shared object{} with {}", s.kernel_partial,
                       s.kernel_partial == 1 ? "" : "s",
                       paint(fit_words(KernelFit::kPartial), kRed, color));
  if (s.kernel_errors != 0)
    out << fmt::format("; {} shared object{} unreadable", s.kernel_errors,
                       s.kernel_errors == 1 ? "" : "s");
  if (!w.complete()) out << "; walk incomplete (notes above): installs may be missed";
  out << fmt::format("  -> exit {}", report.exit_code());
  return out.str();
}

}  // namespace

void render_scan_text(std::ostream& out, const ScanReport& report, bool color) {
  out << "target: " << escape_for_terminal(report.target) << "\n";
  for (const std::string& line : gpu_summary_lines(report.gpu)) out << line << "\n";
  const Catalog& c = report.catalog;
  out << fmt::format("catalog: {} entr{} ({} built in", c.entries.size(),
                     c.entries.size() == 1 ? "y" : "ies", c.builtin);
  for (const auto& [dir, n] : c.user_dirs)
    out << fmt::format(", {} from {}", n, escape_for_terminal(dir));
  out << ")\n";
  for (const std::string& r : c.replaced) out << "  " << escape_for_terminal(r) << "\n";
  const WalkStats& w = report.walk;
  out << fmt::format("walk: {} director{}, {} names, {} symlink{} not followed{}\n", w.directories,
                     w.directories == 1 ? "y" : "ies", w.entries, w.symlinks,
                     w.symlinks == 1 ? "" : "s", w.truncated ? " (stopped: --max-entries)" : "");

  for (const InstallReport& ir : report.installs) {
    const Install& i = ir.install;
    out << "\n" << paint(install_title(i), kBold, color) << "\n";
    if (i.head) {
      if (!i.head->error.empty())
        out << "  HEAD: unknown (" << escape_for_terminal(i.head->error) << ")\n";
      else
        out << "  HEAD: " << i.head->commit
            << (i.head->branch ? " (branch " + escape_for_terminal(*i.head->branch) + ")"
                               : std::string(" (detached)"))
            << "\n";
    }
    if (!i.unversioned.empty())
      out << "  " << (i.kind == InstallKind::kDistribution ? "version" : "revision")
          << ": unknown (" << escape_for_terminal(i.unversioned) << ")\n";
    out << "  found by: " << escape_for_terminal(join(i.found_by))
        << (i.identified_by.empty() ? "" : " (project by " + i.identified_by + ")") << "\n";
    if (!i.unreadable.empty()) out << "  not read: " << escape_for_terminal(i.unreadable) << "\n";
    for (const FixResult& f : ir.fixes) render_fix(out, report, f, color);
    const std::size_t n = static_cast<std::size_t>(&ir - report.installs.data());
    for (const KernelGroup& g : report.kernels.groups)
      if (g.install == n) render_kernel_group(out, report, g, color);
  }
  for (const KernelGroup& g : report.kernels.groups) {
    if (g.install || g.objects.empty()) continue;
    out << "\n" << paint(group_title(g), kBold, color) << "\n";
    render_kernel_group(out, report, g, color);
  }
  if (!report.not_installed.empty()) {
    std::map<std::string, std::size_t> per_project;
    for (const FixResult& f : report.not_installed) ++per_project[c.entries[f.entry].project];
    std::string parts;
    for (const auto& [project, n] : per_project)
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", project, n);
    out << fmt::format("\nnot installed: {} entr{} ({})\n", report.not_installed.size(),
                       report.not_installed.size() == 1 ? "y" : "ies", parts);
  }
  const ScanSummary s = report.summary();
  if (report.not_installed.empty()) out << "\n";
  if (!report.kernels_listed) {
    out << "kernels: not listed (--no-kernels)\n";
  } else {
    const ScanKernels& k = report.kernels;
    out << fmt::format("kernels: {} shared object{} examined, {} with CUDA code", k.shared_objects,
                       k.shared_objects == 1 ? "" : "s", k.with_cuda_code);
    if (k.with_cuda_code != 0 && k.capabilities.empty()) out << ", not judged (no GPU known)";
    if (!k.capabilities.empty() && k.with_cuda_code != 0) {
      // The categories of the object lines (worst_fit()): none, partial (named only when
      // some object is), PTX JIT.
      const std::string_view gpu = report.gpu.devices.size() == 1 ? "this GPU" : "some GPU";
      out << fmt::format("; {} with no kernel image for {}", s.kernel_no_image, gpu);
      if (s.kernel_partial != 0)
        out << fmt::format(", {} with {} for {}", s.kernel_partial,
                           fit_words(KernelFit::kPartial), gpu);
      out << fmt::format(", {} needing PTX JIT", s.kernel_ptx_jit);
    }
    if (s.kernel_not_compared != 0)
      out << fmt::format(", {} whose kernels could not all be compared", s.kernel_not_compared);
    if (s.kernel_errors != 0) out << fmt::format(", {} unreadable", s.kernel_errors);
    out << "\n";
  }
  for (const std::string& n : report.notes) out << "note: " << escape_for_terminal(n) << "\n";
  for (const std::string& u : w.unreadable) out << "note: not listed: " << escape_for_terminal(u) << "\n";
  out << "\n" << summary_text(report, color) << "\n";
}

std::string scan_summary_line(const ScanReport& report) { return summary_text(report, false); }

ordered_json scan_to_json(const ScanReport& report) {
  ordered_json doc;
  doc["schema"] = kScanSchema;
  doc["tool"] = tool_to_json();
  doc["target"] = {{"path", sanitize_utf8(report.target)}};
  doc["gpu"] = gpu_to_json(report.gpu);
  const Catalog& c = report.catalog;
  ordered_json user = ordered_json::array();
  for (const auto& [dir, n] : c.user_dirs) user.push_back({{"path", sanitize_utf8(dir)}, {"entries", n}});
  doc["catalog"] = {{"entries", c.entries.size()},
                    {"builtin", c.builtin},
                    {"user_dirs", std::move(user)},
                    {"replaced", strings_json(c.replaced)}};
  const WalkStats& w = report.walk;
  doc["walk"] = {{"directories", w.directories},     {"entries", w.entries},
                 {"symlinks", w.symlinks},           {"depth_limited", w.depth_limited},
                 {"truncated", w.truncated},         {"unreadable", strings_json(w.unreadable)},
                 {"outside_symlinks", strings_json(w.outside_symlinks)},
                 {"not_read", strings_json(w.not_read)},
                 {"complete", w.complete()}};
  ordered_json installs = ordered_json::array();
  for (const InstallReport& ir : report.installs) {
    const Install& i = ir.install;
    ordered_json j;
    j["kind"] = to_string(i.kind);
    j["projects"] = strings_json(i.projects);
    j["distribution"] = null_or(i.distribution);
    j["version"] = null_or(i.version);
    j["metadata_versions"] = strings_json(i.metadata_versions);
    j["root"] = sanitize_utf8(i.root);
    j["outside_target"] = i.outside_target;
    j["unreadable"] = null_or(i.unreadable);
    j["found_by"] = strings_json(i.found_by);
    if (i.head)
      j["head"] = {{"commit", null_or(i.head->commit)},
                   {"branch", i.head->branch ? ordered_json(sanitize_utf8(*i.head->branch))
                                             : ordered_json(nullptr)},
                   {"error", null_or(i.head->error)}};
    else
      j["head"] = nullptr;
    j["unversioned"] = null_or(i.unversioned);
    j["not_imported"] = null_or(i.not_imported);
    j["identified_by"] = null_or(i.identified_by);
    ordered_json fixes = ordered_json::array();
    for (const FixResult& f : ir.fixes) fixes.push_back(fix_json(report, f));
    j["fixes"] = std::move(fixes);
    const std::optional<std::size_t> group = group_of(report, installs.size());
    j["kernels"] = group ? ordered_json(*group) : ordered_json(nullptr);
    installs.push_back(std::move(j));
  }
  doc["installs"] = std::move(installs);
  ordered_json missing = ordered_json::array();
  for (const FixResult& f : report.not_installed) missing.push_back(fix_json(report, f));
  doc["not_installed"] = std::move(missing);
  doc["kernels"] = kernels_json(report);
  doc["notes"] = strings_json(report.notes);
  doc["only_relevant"] = report.only_relevant;
  const ScanSummary s = report.summary();
  doc["summary"] = {{"present", s.present},
                    {"missing", s.missing},
                    {"unknown", s.unknown},
                    {"not_installed", s.not_installed},
                    {"skipped", s.skipped},
                    {"kernel_objects", s.kernel_objects},
                    {"kernel_no_image", s.kernel_no_image},
                    {"kernel_partial", s.kernel_partial},
                    {"kernel_ptx_jit", s.kernel_ptx_jit},
                    {"kernel_errors", s.kernel_errors},
                    {"kernel_not_compared", s.kernel_not_compared}};
  doc["exit_code"] = report.exit_code();
  return doc;
}

void render_catalog_text(std::ostream& out, const Catalog& catalog) {
  std::size_t id_width = 0, project_width = 0, cc_width = 0;
  for (const CatalogEntry& e : catalog.entries) {
    id_width = std::max(id_width, e.id.size());
    project_width = std::max(project_width, e.project.size());
    cc_width = std::max(cc_width, join(e.compute_capabilities, " ").size());
  }
  for (const CatalogEntry& e : catalog.entries)
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", e.id, id_width, e.project, project_width,
                       join(e.compute_capabilities, " "), cc_width, escape_for_terminal(e.title));
  out << fmt::format("{} entr{} ({} built in", catalog.entries.size(),
                     catalog.entries.size() == 1 ? "y" : "ies", catalog.builtin);
  for (const auto& [dir, n] : catalog.user_dirs)
    out << fmt::format(", {} from {}", n, escape_for_terminal(dir));
  out << ")\n";
  for (const std::string& r : catalog.replaced) out << escape_for_terminal(r) << "\n";
}

ordered_json catalog_to_json(const Catalog& catalog) {
  ordered_json doc;
  doc["schema"] = kCatalogListSchema;
  doc["tool"] = tool_to_json();
  ordered_json entries = ordered_json::array();
  for (const CatalogEntry& e : catalog.entries) {
    ordered_json j;
    j["id"] = e.id;
    j["project"] = e.project;
    j["distributions"] = strings_json(e.distributions);
    j["title"] = sanitize_utf8(e.title);
    j["compute_capabilities"] = strings_json(e.compute_capabilities);
    j["upstream"] = upstream_json(e.upstream);
    j["source"] = sanitize_utf8(e.source);
    entries.push_back(std::move(j));
  }
  doc["entries"] = std::move(entries);
  doc["replaced"] = strings_json(catalog.replaced);
  return doc;
}

std::string report_words::install_title(const Install& install) {
  return sm120check::install_title(install);
}

std::string report_words::group_title(const KernelGroup& group) {
  return sm120check::group_title(group);
}

std::string report_words::fix_block(const ScanReport& report, const FixResult& fix) {
  std::ostringstream out;
  render_fix(out, report, fix, false);
  return out.str();
}

std::string report_words::object_text(const ScanReport& report, const KernelGroup& group,
                                      std::size_t i) {
  return sm120check::object_text(report, group, i, false);
}

}  // namespace sm120check
