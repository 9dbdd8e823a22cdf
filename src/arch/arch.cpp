// Architecture target sets: normalisation, names and coverage (see arch.hpp).
#include "sm120check/arch.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sm120check {
namespace {

std::string sm_name(int sm) { return fmt::format("sm_{}", sm); }

/// Name of one range (see ArchTargets::names()); may yield several names.
void range_names(const ArchRange& r, std::vector<std::string>& out) {
  if (r.lo <= 0 && r.hi >= kSmUnbounded) {
    out.push_back("any");
  } else if (r.hi >= kSmUnbounded) {
    out.push_back(std::string(">=").append(sm_name(r.lo)));  // GCC 12 -Wrestrict on "x" + s
  } else if (r.lo <= 0) {
    out.push_back(std::string("<").append(sm_name(r.hi)));
  } else if (r.hi == r.lo + 1) {
    out.push_back(sm_name(r.lo));
  } else if (r.hi - r.lo <= 4) {
    for (int sm = r.lo; sm < r.hi; ++sm) out.push_back(sm_name(sm));
  } else if (r.lo % 10 == 0 && r.hi % 10 == 0) {
    for (int major = r.lo / 10; major < r.hi / 10; ++major)
      out.push_back(fmt::format("sm_{}x", major));
  } else {
    out.push_back(fmt::format(">={} <{}", sm_name(r.lo), sm_name(r.hi)));
  }
}

}  // namespace

std::string_view to_string(ArchSource source) {
  switch (source) {
    case ArchSource::kNone:
      return "none";
    case ArchSource::kTrailer:
      return "trailer";
    case ArchSource::kInferred:
      return "inferred";
  }
  return "none";
}

std::string_view to_string(ArchConfidence confidence) {
  switch (confidence) {
    case ArchConfidence::kConfident:
      return "confident";
    case ArchConfidence::kUnsure:
      return "unsure";
  }
  return "unsure";
}

void ArchTargets::add(ArchRange range) {
  range.lo = std::max(range.lo, 0);
  range.hi = std::min(range.hi, kSmUnbounded);
  if (range.empty()) return;
  ranges.push_back(range);
  std::sort(ranges.begin(), ranges.end(),
            [](const ArchRange& a, const ArchRange& b) { return a.lo < b.lo; });
  std::vector<ArchRange> merged;
  for (const ArchRange& r : ranges) {
    if (!merged.empty() && r.lo <= merged.back().hi)
      merged.back().hi = std::max(merged.back().hi, r.hi);
    else
      merged.push_back(r);
  }
  ranges = std::move(merged);
}

void ArchTargets::add(const ArchTargets& other) {
  for (const ArchRange& r : other.ranges) add(r);
}

std::vector<std::string> ArchTargets::names() const {
  std::vector<std::string> out;
  for (const ArchRange& r : ranges) range_names(r, out);
  return out;
}

bool covers(const ArchTargets& targets, ComputeCapability cc) {
  return std::any_of(targets.ranges.begin(), targets.ranges.end(),
                     [&](const ArchRange& r) { return r.contains(cc); });
}

std::optional<bool> arch_relevant(const ArchTargets& targets, const GpuReport& gpu) {
  if (targets.empty() || gpu.devices.empty()) return std::nullopt;
  for (const GpuDevice& d : gpu.devices)
    if (covers(targets, d.cc)) return true;
  // Doubt means unknown, never false: only confident targets may leave a patch out.
  if (targets.confidence != ArchConfidence::kConfident) return std::nullopt;
  return false;
}

}  // namespace sm120check
