// Which entry of a fat binary a GPU can run: entry_fit(), module_fit(), file_fit(). The rules
// and their sources are in include/sm120check/kernels.hpp (entry_fit).
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "sm120check/kernels.hpp"

namespace sm120check {
namespace {

/// Whether code built for `sm` with `variant` may run on `cc` (cubins and PTX share the rule,
/// except that plain PTX also runs on later majors: `any_later_major`).
bool variant_allows(int sm, ArchVariant variant, ComputeCapability cc, bool any_later_major) {
  const ComputeCapability built = ComputeCapability::from_sm(sm);
  switch (variant) {
    case ArchVariant::kArchSpecific: return built == cc;
    case ArchVariant::kFamily: return built.major == cc.major && built.minor <= cc.minor;
    case ArchVariant::kPlain: break;
  }
  if (any_later_major) return built <= cc;
  return built.major == cc.major && built.minor <= cc.minor;
}

}  // namespace

std::string_view to_string(KernelFit fit) {
  switch (fit) {
    case KernelFit::kExact: return "exact";
    case KernelFit::kCompatible: return "compatible";
    case KernelFit::kPtxJit: return "ptx-jit";
    case KernelFit::kPartial: return "partial";
    case KernelFit::kNone: break;
  }
  return "none";
}

int cuda_version_for_ptx_isa(int major, int minor) {
  // PTX ISA reference, "Release Notes": the PTX ISA version each CUDA release introduced.
  struct Row {
    int major, minor, cuda;
  };
  static constexpr Row kTable[] = {
      {6, 0, 9000},   {6, 1, 9010},   {6, 2, 9020},   {6, 3, 10000},  {6, 4, 10010},
      {6, 5, 10020},  {7, 0, 11000},  {7, 1, 11010},  {7, 2, 11020},  {7, 3, 11030},
      {7, 4, 11040},  {7, 5, 11050},  {7, 6, 11060},  {7, 7, 11070},  {7, 8, 11080},
      {8, 0, 12000},  {8, 1, 12010},  {8, 2, 12020},  {8, 3, 12030},  {8, 4, 12040},
      {8, 5, 12050},  {8, 6, 12070},  {8, 7, 12080},  {8, 8, 12090},  {9, 0, 13000},
      {9, 1, 13010},
  };
  for (const Row& row : kTable)
    if (row.major == major && row.minor == minor) return row.cuda;
  return 0;
}

KernelFit entry_fit(const KernelEntry& entry, ComputeCapability cc, int driver_cuda_version) {
  switch (entry.kind) {
    case KernelEntryKind::kCubin:
      if (!entry.problem.empty()) return KernelFit::kNone;  // the driver fails on the payload
      if (!variant_allows(entry.sm, entry.variant, cc, false)) return KernelFit::kNone;
      return entry.sm == cc.sm() ? KernelFit::kExact : KernelFit::kCompatible;
    case KernelEntryKind::kPtx: {
      if (!variant_allows(entry.sm, entry.variant, cc, true)) return KernelFit::kNone;
      if (driver_cuda_version > 0 && entry.ptx_version) {
        const auto [major, minor] = *entry.ptx_version;
        const int needed = cuda_version_for_ptx_isa(major, minor);
        // A version the table lacks is older than 6.0 (any driver here knows it) or newer than
        // 9.1 (CUDA 13.1): then no driver up to 13.1 does.
        const bool newer_than_table = needed == 0 && (major > 9 || (major == 9 && minor > 1));
        if (needed > driver_cuda_version || (newer_than_table && driver_cuda_version <= 13010))
          return KernelFit::kNone;
      }
      return KernelFit::kPtxJit;
    }
    case KernelEntryKind::kLtoIr:
    case KernelEntryKind::kUnknown: break;
  }
  return KernelFit::kNone;
}

ModuleFit module_fit(const FatBinary& fatbin, ComputeCapability cc, int driver_cuda_version) {
  ModuleFit best;
  for (std::size_t i = 0; i < fatbin.entries.size(); ++i) {
    const KernelFit fit = entry_fit(fatbin.entries[i], cc, driver_cuda_version);
    if (fit < best.fit) {
      best.fit = fit;
      best.entry = static_cast<int>(i);
    }
  }
  if (best.fit == KernelFit::kNone) return best;
  // The image the driver loads (module_fit in kernels.hpp): the highest SM of the best kind
  // that fits, a cubin when one does, else the PTX it JIT-compiles.
  const KernelEntryKind kind =
      best.fit == KernelFit::kPtxJit ? KernelEntryKind::kPtx : KernelEntryKind::kCubin;
  const KernelEntry* loaded = nullptr;
  for (const KernelEntry& e : fatbin.entries)
    if (e.kind == kind && entry_fit(e, cc, driver_cuda_version) <= best.fit &&
        (loaded == nullptr || e.sm > loaded->sm))
      loaded = &e;
  if (loaded == nullptr) return best;
  if (kind == KernelEntryKind::kCubin && loaded->functions == 0u && fatbin.has_kernels())
    return {};
  // Every function of another cubin, and every kernel (.entry) of a PTX entry, must be in the
  // image loaded (kernels defined under `#if __CUDA_ARCH__ < 1000` are in the sm_90 cubin or
  // the compute_90 PTX only; a 12.0 GPU loads the sm_120 cubin, or JIT-compiles the
  // compute_120 PTX, and cannot launch them).
  std::vector<std::string> missing;
  bool compared = loaded->functions.has_value();
  bool others = false;
  for (const KernelEntry& e : fatbin.entries) {
    if ((e.kind != KernelEntryKind::kCubin && e.kind != KernelEntryKind::kPtx) || &e == loaded)
      continue;
    others = true;
    if (!e.functions || !loaded->functions) {
      compared = false;  // unread (compressed past the budget, too large) or malformed
      continue;
    }
    std::set_difference(e.function_names.begin(), e.function_names.end(),
                        loaded->function_names.begin(), loaded->function_names.end(),
                        std::back_inserter(missing));
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  best.functions_compared = compared || !others;  // one image: nothing to compare
  // A PTX without any kernel while other images of the module have some: nothing to launch,
  // as with an empty cubin loaded (above).
  if (kind == KernelEntryKind::kPtx && loaded->functions == 0u && !missing.empty()) return {};
  if (!missing.empty()) {
    best.fit = KernelFit::kPartial;
    best.entry = static_cast<int>(loaded - fatbin.entries.data());
    best.missing_functions = std::move(missing);
  }
  return best;
}

FileFit file_fit(const KernelListing& listing, ComputeCapability cc, int driver_cuda_version) {
  FileFit result;
  result.cc = cc;
  // A file read only in part (a damaged archive member header, a fat binary cut short): the
  // modules after the fault are unknown, and any of them may lack an image for this GPU.
  if (!listing.error.empty()) {
    result.not_judged = true;
    return result;
  }
  const bool any_loaded = std::any_of(listing.fatbins.begin(), listing.fatbins.end(),
                                      [](const FatBinary& f) { return f.loaded() && f.has_kernels(); });
  KernelFit worst = KernelFit::kNone;  // among the modules that have an image
  for (std::size_t i = 0; i < listing.fatbins.size(); ++i) {
    const FatBinary& f = listing.fatbins[i];
    // Embedded input for the JIT linker is never judged (no fallback as for an -rdc object).
    if ((any_loaded || f.section == "embedded") && !f.loaded()) {
      ++result.skipped_relocatable;
      continue;
    }
    if (!f.has_kernels()) {
      ++result.skipped_without_kernels;
      continue;
    }
    const ModuleFit fit = module_fit(f, cc, driver_cuda_version);
    ++result.modules[static_cast<std::size_t>(fit.fit)];
    if ((fit.fit == KernelFit::kExact || fit.fit == KernelFit::kCompatible) &&
        !fit.functions_compared)
      ++result.not_compared;
    if (fit.fit != KernelFit::kNone)
      worst = worst == KernelFit::kNone ? fit.fit : std::max(worst, fit.fit);
    result.judged.emplace_back(i, fit);
  }
  result.fit = worst;
  return result;
}

int kernels_exit_code(const KernelsReport& report) {
  int code = 0;
  for (std::size_t i = 0; i < report.files.size(); ++i) {
    if (!report.files[i].error.empty()) return 3;
    if (i >= report.fits.size()) continue;
    for (const FileFit& fit : report.fits[i]) {
      if (fit.judged.empty()) continue;
      if (fit.fit == KernelFit::kNone || fit.fit == KernelFit::kPartial || fit.not_compared > 0)
        code = std::max(code, 2);
      if (fit.fit == KernelFit::kPtxJit) code = std::max(code, 1);
    }
  }
  return code;
}

}  // namespace sm120check
