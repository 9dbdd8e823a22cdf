// `sm120check kernels` as text and as the "sm120check.kernels/1" document (docs/json.md).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "sm120check/report.hpp"

namespace sm120check {
namespace {

using json = nlohmann::ordered_json;

std::string hex(std::uint64_t value) { return fmt::format("{:#x}", value); }

std::string_view variant_name(ArchVariant variant) {
  switch (variant) {
    case ArchVariant::kArchSpecific: return "a";
    case ArchVariant::kFamily: return "f";
    case ArchVariant::kPlain: break;
  }
  return "";
}

std::string ptx_version_text(const KernelEntry& e) {
  return e.ptx_version ? fmt::format("{}.{}", (*e.ptx_version)[0], (*e.ptx_version)[1]) : "";
}

json entry_to_json(const KernelEntry& e) {
  json out = json::object();
  out["kind"] = std::string(to_string(e.kind));
  out["raw_kind"] = e.raw_kind;
  out["arch"] = e.arch_name();
  out["sm"] = e.sm;
  out["variant"] = std::string(variant_name(e.variant));
  out["ptx_version"] = e.ptx_version ? json(ptx_version_text(e)) : json(nullptr);
  out["compression"] = std::string(to_string(e.compression));
  out["offset"] = e.offset;
  out["payload_offset"] = e.payload_offset;
  out["size"] = e.size;
  out["uncompressed_size"] = e.uncompressed_size;
  out["functions"] = e.functions ? json(*e.functions) : json(nullptr);
  out["problem"] = e.problem.empty() ? json(nullptr) : json(sanitize_utf8(e.problem));
  return out;
}

json fit_to_json(const FileFit& fit, const KernelListing& listing) {
  json out = json::object();
  out["cc"] = fit.cc.to_string();
  out["fit"] = fit.judged.empty() ? json(nullptr) : json(std::string(to_string(fit.fit)));
  json modules = json::object();
  for (KernelFit f : {KernelFit::kExact, KernelFit::kCompatible, KernelFit::kPtxJit,
                      KernelFit::kPartial, KernelFit::kNone})
    modules[std::string(to_string(f))] = fit.modules[static_cast<std::size_t>(f)];
  out["modules"] = std::move(modules);
  out["skipped_without_kernels"] = fit.skipped_without_kernels;
  out["skipped_relocatable"] = fit.skipped_relocatable;
  out["modules_not_compared"] = fit.not_compared;
  json judged = json::array();
  for (const auto& [index, module] : fit.judged) {
    json m = json::object();
    m["fat_binary"] = index;
    m["fit"] = std::string(to_string(module.fit));
    m["entry"] = module.entry >= 0 ? json(module.entry) : json(nullptr);
    m["arch"] = module.entry >= 0
                    ? json(listing.fatbins[index].entries[static_cast<std::size_t>(module.entry)]
                               .arch_name())
                    : json(nullptr);
    json missing = json::array();
    for (const std::string& name : module.missing_functions) missing.push_back(sanitize_utf8(name));
    m["missing_functions"] = std::move(missing);
    m["functions_compared"] = module.functions_compared;
    judged.push_back(std::move(m));
  }
  out["module_fits"] = std::move(judged);
  out["not_judged"] = fit.not_judged;
  return out;
}

/// "sm_80, sm_90 (2), compute_80 (PTX 9.0)": the distinct architectures of a file by kind, in
/// ascending SM order, with how many fat binaries carry each when more than one does.
std::string architectures_text(const KernelListing& listing, KernelEntryKind kind) {
  std::map<std::tuple<int, int, std::string>, std::size_t> counts;  // (sm, variant, PTX) -> n
  for (const FatBinary& f : listing.fatbins)
    for (const KernelEntry& e : f.entries)
      if (e.kind == kind) ++counts[{e.sm, static_cast<int>(e.variant), ptx_version_text(e)}];
  std::string out;
  for (const auto& [key, n] : counts) {
    KernelEntry e;
    e.kind = kind;
    e.sm = std::get<0>(key);
    e.variant = static_cast<ArchVariant>(std::get<1>(key));
    if (!out.empty()) out += ", ";
    out += e.arch_name();
    std::string notes;
    if (!std::get<2>(key).empty()) notes = "PTX " + std::get<2>(key);
    if (listing.fatbins.size() > 1) notes += (notes.empty() ? "" : ", ") + fmt::format("x{}", n);
    if (!notes.empty()) out += " (" + notes + ")";
  }
  return out;
}

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

const char* fit_color(KernelFit fit) {
  switch (fit) {
    case KernelFit::kExact:
    case KernelFit::kCompatible: return "32";
    case KernelFit::kPtxJit: return "33";
    case KernelFit::kPartial:
    case KernelFit::kNone: break;
  }
  return "31";
}

/// The cubins the driver loads in the modules of `fit` judged `which` (ModuleFit::entry into
/// `listing`'s fat binaries), each architecture once, in module order.
std::vector<const KernelEntry*> loaded_cubins(const FileFit& fit, const KernelListing& listing,
                                              KernelFit which) {
  std::vector<const KernelEntry*> out;
  for (const auto& judged : fit.judged) {
    const ModuleFit& m = judged.second;
    if (m.fit != which || m.entry < 0 || judged.first >= listing.fatbins.size()) continue;
    const std::vector<KernelEntry>& entries = listing.fatbins[judged.first].entries;
    if (static_cast<std::size_t>(m.entry) >= entries.size()) continue;
    const KernelEntry& e = entries[static_cast<std::size_t>(m.entry)];
    if (e.kind != KernelEntryKind::kCubin) continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const KernelEntry* o) { return o->arch_name() == e.arch_name(); }))
      out.push_back(&e);
  }
  return out;
}

/// What the suffix of each of `cubins` means, e.g. "sm_120f is a family-specific build: it
/// runs on 12.y for y >= 0, the 12.x family"; "" when none has a suffix. Source: CUDA
/// C++ Programming Guide, "Feature Availability" (architecture-specific `a` and
/// family-specific `f` feature sets: sm_XYa code runs on compute capability X.Y only, sm_XYf
/// code on X.z with z >= Y), and NVIDIA's developer blog "Blackwell and CUDA 12.9 Introduce
/// Family-Specific Architecture Features" (2025).
std::string variant_note(const std::vector<const KernelEntry*>& cubins) {
  std::string out;
  for (const KernelEntry* e : cubins) {
    const int major = e->sm / 10, minor = e->sm % 10;
    std::string note;
    if (e->variant == ArchVariant::kFamily)
      note = fmt::format("{} is a family-specific build: it runs on {}.y for y >= {}, the {}.x "
                         "family",
                         e->arch_name(), major, minor, major);
    else if (e->variant == ArchVariant::kArchSpecific)
      note = fmt::format("{} is architecture-specific: it runs on {}.{} only", e->arch_name(),
                         major, minor);
    if (!note.empty()) out += (out.empty() ? "" : "; ") + note;
  }
  return out;
}

/// "sm_120, sm_120f".
std::string arch_names(const std::vector<const KernelEntry*>& cubins) {
  std::string out;
  for (const KernelEntry* e : cubins) out += (out.empty() ? "" : ", ") + e->arch_name();
  return out;
}

/// "exact: sm_120 SASS in its module" and the like, for one capability; the cubins' names and
/// what their suffix means where one has a suffix ("exact: sm_120f SASS in its module (sm_120f
/// is a family-specific build: ...)").
std::string fit_text(const FileFit& fit, const KernelListing& listing, bool color) {
  if (fit.not_judged)
    return paint("not judged", "31", color) +
           ": the file could not be read whole (error above); the modules after the fault are "
           "unknown";
  if (fit.judged.empty()) return "nothing to run (no module with a kernel)";
  const std::size_t total = fit.judged.size();
  const auto count = [&](KernelFit f) { return fit.modules[static_cast<std::size_t>(f)]; };
  const std::size_t with_image = total - count(KernelFit::kNone);
  std::string why;
  switch (fit.fit) {
    case KernelFit::kExact: {
      const std::vector<const KernelEntry*> cubins =
          loaded_cubins(fit, listing, KernelFit::kExact);
      const std::string note = variant_note(cubins);
      why = fmt::format("{} SASS in {}", note.empty() ? fit.cc.sm_name() : arch_names(cubins),
                        total == 1        ? "its module"
                        : with_image == 1 ? "1 module"
                                          : fmt::format("{} modules", with_image));
      if (!note.empty()) why += " (" + note + ")";
      break;
    }
    case KernelFit::kCompatible: {
      const std::vector<const KernelEntry*> cubins =
          loaded_cubins(fit, listing, KernelFit::kCompatible);
      const std::string note = variant_note(cubins);
      why = fmt::format("{} in {} of {} module{}",
                        note.empty() ? fmt::format("SASS of an earlier {}.x (binary compatible)",
                                                   fit.cc.major)
                                     : arch_names(cubins) + " SASS",
                        count(KernelFit::kCompatible), with_image, with_image == 1 ? "" : "s");
      if (!note.empty()) why += " (" + note + ")";
      break;
    }
    case KernelFit::kPtxJit:
      why = fmt::format("{} of {} module{} only as PTX, JIT-compiled by the driver at first load",
                        count(KernelFit::kPtxJit), with_image, with_image == 1 ? "" : "s");
      break;
    case KernelFit::kPartial: {
      std::size_t functions = 0;
      std::string names;
      for (const auto& judged : fit.judged)
        for (const std::string& name : judged.second.missing_functions) {
          if (++functions <= 3) names += (names.empty() ? "" : ", ") + escape_for_terminal(name);
        }
      if (functions > 3) names += ", ...";
      why = fmt::format("the cubin or PTX a {} GPU loads lacks {} function{} that another cubin "
                        "or PTX of the same module has ({}), in {} of {} module{}: launching {} fails "
                        "(no kernel image for {})",
                        fit.cc.to_string(), functions, functions == 1 ? "" : "s", names,
                        count(KernelFit::kPartial), total, total == 1 ? "" : "s",
                        functions == 1 ? "it" : "them", fit.cc.to_string());
      break;
    }
    case KernelFit::kNone:
      why = fmt::format("no kernel image for {} in {} (\"no kernel image is available for "
                        "execution on the device\")",
                        fit.cc.to_string(),
                        total == 1 ? "its module" : fmt::format("any of its {} modules", total));
      break;
  }
  // Several kinds of modules with an image: how many of each.
  std::string parts;
  std::size_t kinds = 0;
  for (KernelFit f :
       {KernelFit::kExact, KernelFit::kCompatible, KernelFit::kPtxJit, KernelFit::kPartial})
    if (count(f) > 0) {
      ++kinds;
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", count(f), to_string(f));
    }
  if (kinds > 1) why += " (modules: " + parts + ")";
  if (fit.fit != KernelFit::kNone && count(KernelFit::kNone) > 0)
    why += fmt::format("; {} of {} modules have no image for {} (built for other architectures "
                       "only: their kernels cannot launch here)",
                       count(KernelFit::kNone), total, fit.cc.to_string());
  std::string word = paint(std::string(to_string(fit.fit)), fit_color(fit.fit), color);
  if (fit.not_compared > 0) {
    // The cubin fits, but whether it holds every kernel of its module is not known.
    word.append(" ").append(paint("(functions not compared)", "31", color));
    why += fmt::format("; the functions of {} of {} modules could not be compared (a cubin or "
                       "PTX of theirs left unread: larger than {} MiB decompressed, or past the "
                       "file's decompression budget): a kernel missing from the cubin {} loads "
                       "would not be seen",
                       fit.not_compared, total, kMaxDecompressBytes >> 20, fit.cc.to_string());
  }
  return word + ": " + why;
}

std::string entry_text(const KernelEntry& e) {
  std::string out = fmt::format("{:<6} {:<13} {} bytes", to_string(e.kind), e.arch_name(), e.size);
  if (e.compressed())
    out += fmt::format(" {} ({} uncompressed)", to_string(e.compression), e.uncompressed_size);
  if (e.ptx_version) out += " PTX ISA " + ptx_version_text(e);
  if (e.functions) out += fmt::format(", {} function{}", *e.functions, *e.functions == 1 ? "" : "s");
  if (!e.problem.empty()) out += ", malformed: " + escape_for_terminal(e.problem);
  return out;
}

}  // namespace

nlohmann::ordered_json kernel_file_to_json(const KernelListing& listing,
                                           const std::vector<FileFit>& fits) {
  json file = json::object();
  file["path"] = sanitize_utf8(listing.path);
  file["elf"] = listing.elf;
  file["archive"] = listing.archive;
  file["error"] = listing.error.empty() ? json(nullptr) : json(sanitize_utf8(listing.error));
  json fatbins = json::array();
  for (const FatBinary& f : listing.fatbins) {
    json fb = json::object();
    fb["section"] = f.section;
    fb["member"] = f.member.empty() ? json(nullptr) : json(sanitize_utf8(f.member));
    fb["offset"] = f.offset;
    fb["loaded"] = f.loaded();
    fb["has_kernels"] = f.has_kernels();
    json entries = json::array();
    for (const KernelEntry& e : f.entries) entries.push_back(entry_to_json(e));
    fb["entries"] = std::move(entries);
    fatbins.push_back(std::move(fb));
  }
  file["fat_binaries"] = std::move(fatbins);
  json fits_json = json::array();
  for (const FileFit& fit : fits) fits_json.push_back(fit_to_json(fit, listing));
  file["fits"] = std::move(fits_json);
  return file;
}

std::string kernel_architectures_text(const KernelListing& listing) {
  std::string out;
  for (KernelEntryKind kind : {KernelEntryKind::kCubin, KernelEntryKind::kPtx,
                               KernelEntryKind::kLtoIr, KernelEntryKind::kUnknown}) {
    const std::string archs = architectures_text(listing, kind);
    if (!archs.empty()) out += (out.empty() ? "" : "; ") + archs;
  }
  return out;
}

nlohmann::ordered_json kernels_document(const KernelsReport& report, int exit_code) {
  json doc = json::object();
  doc["schema"] = kKernelsSchema;
  doc["tool"] = tool_to_json();
  json ccs = json::array();
  for (const ComputeCapability& cc : report.capabilities) ccs.push_back(cc.to_string());
  doc["capabilities"] = std::move(ccs);
  doc["gpu_source"] = report.gpu_source;
  doc["gpu_error"] = report.gpu_error.empty() ? json(nullptr) : json(sanitize_utf8(report.gpu_error));
  doc["driver_version"] = report.driver_cuda_version > 0
                              ? json(cuda_version_string(report.driver_cuda_version))
                              : json(nullptr);
  json files = json::array();
  for (std::size_t i = 0; i < report.files.size(); ++i)
    files.push_back(kernel_file_to_json(report.files[i],
                                        i < report.fits.size() ? report.fits[i] : std::vector<FileFit>{}));
  doc["files"] = std::move(files);
  doc["files_examined"] = report.files_examined;
  doc["exit_code"] = exit_code;
  return doc;
}

void render_kernels_text(std::ostream& out, const KernelsReport& report, bool color, bool entries) {
  if (report.capabilities.empty())
    out << "gpu: none known" << (report.gpu_error.empty() ? "" : " (" + escape_for_terminal(report.gpu_error) + ")")
        << ": architectures listed, not judged (--cc 12.0 judges for a capability)\n";
  std::size_t with_code = 0, errors = 0;
  for (std::size_t i = 0; i < report.files.size(); ++i) {
    const KernelListing& listing = report.files[i];
    const std::string path = escape_for_terminal(listing.path);
    if (listing.fatbins.empty() && listing.error.empty()) {
      out << path << ": no CUDA code"
          << (listing.elf ? " found (no .nv_fatbin or __nv_relfatbin section, no fat binary or "
                            "cubin image in its data; kernels it builds or decompresses at run "
                            "time are not seen)"
                          : " (not an ELF file or fat binary)")
          << '\n';
      continue;
    }
    if (listing.fatbins.empty()) {
      out << path << ": " << paint("error", "31", color) << ": "
          << escape_for_terminal(listing.error) << '\n';
      ++errors;
      continue;
    }
    if (!listing.error.empty()) ++errors;
    ++with_code;
    std::size_t compressed = 0, without_kernels = 0, relocatable = 0, relfatbin = 0, embedded = 0;
    bool by_segments = false;
    for (const FatBinary& f : listing.fatbins) {
      by_segments = by_segments || f.section == "segment";
      if (f.section == "embedded") ++embedded;
      if (!f.has_kernels()) ++without_kernels;
      if (!f.loaded()) ++relocatable;
      if (f.section == "__nv_relfatbin") ++relfatbin;
      for (const KernelEntry& e : f.entries)
        if (e.compressed()) ++compressed;
    }
    const std::string& first = listing.fatbins.front().section;
    if (listing.fatbins.size() == 1 && (first == "cubin" || first == "ptx"))
      out << path << ": " << (first == "cubin" ? "a cubin" : "PTX") << " file, not in a fat binary";
    else
      out << path << ": " << listing.fatbins.size() << " fat binar"
          << (listing.fatbins.size() == 1 ? "y" : "ies") << ", " << listing.entry_count() << " entr"
          << (listing.entry_count() == 1 ? "y" : "ies");
    if (compressed > 0) out << " (" << compressed << " compressed)";
    if (without_kernels > 0) out << ", " << without_kernels << " without kernels";
    if (relfatbin > 0) out << ", " << relfatbin << " relocatable (__nv_relfatbin)";
    if (by_segments) out << ", found by their headers in loaded segments (no section header table)";
    const std::size_t for_jit = relocatable - relfatbin;  // embedded with LTO IR
    if (embedded > for_jit)
      out << ", " << embedded - for_jit << " embedded in its data (images the library loads "
          << "itself, cuModuleLoadData)";
    if (for_jit > 0)
      out << ", " << for_jit << " embedded with LTO IR (input for the JIT linker, nvJitLink: not "
          << "judged)";
    out << '\n';
    if (!listing.error.empty())
      out << "  " << paint("error", "31", color) << ": " << escape_for_terminal(listing.error)
          << '\n';
    for (KernelEntryKind kind : {KernelEntryKind::kCubin, KernelEntryKind::kPtx,
                                 KernelEntryKind::kLtoIr, KernelEntryKind::kUnknown}) {
      const std::string archs = architectures_text(listing, kind);
      if (!archs.empty()) out << "  " << fmt::format("{:<7}", to_string(kind)) << archs << '\n';
    }
    if (entries)
      for (std::size_t k = 0; k < listing.fatbins.size(); ++k) {
        const FatBinary& f = listing.fatbins[k];
        out << "  fat binary " << k + 1 << " ("
            << (f.member.empty() ? "" : "member " + escape_for_terminal(f.member) + ", ")
            << (f.section.empty() ? "file" : f.section) << " at " << hex(f.offset) << ")"
            << (f.loaded()                        ? ""
                : f.section == "__nv_relfatbin" ? ", relocatable: for the device linker"
                                                : ", LTO IR: for the JIT linker, not judged")
            << (f.has_kernels() ? "" : ", no kernels") << '\n';
        for (const KernelEntry& e : f.entries) out << "    " << entry_text(e) << '\n';
      }
    if (i < report.fits.size())
      for (const FileFit& fit : report.fits[i])
        out << "  " << fmt::format("{:<6}", fit.cc.to_string() + ":") << fit_text(fit, listing, color)
            << '\n';
  }
  out << "summary: " << report.files_examined << " file" << (report.files_examined == 1 ? "" : "s")
      << " examined, " << with_code << " with CUDA code";
  if (errors > 0) out << ", " << errors << " unreadable or malformed";
  out << '\n';
}

}  // namespace sm120check
