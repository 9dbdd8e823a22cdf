// Per-patch architecture targets and their relevance to the GPU (see assess_arch()).
#include "sm120check/arch.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {

void assess_arch(VerifyReport& report, const std::vector<Patch>& patches, GpuReport gpu,
                 bool only_relevant) {
  for (std::size_t i = 0; i < report.patches.size() && i < patches.size(); ++i) {
    PatchReport& p = report.patches[i];
    p.arch = infer_arch_targets(patches[i], p.strip);
    p.relevant = arch_relevant(p.arch, gpu);
    if (only_relevant && p.relevant == false && p.status != Status::kError)
      p.status = Status::kSkipped;  // an error is never hidden
  }
  report.gpu = std::move(gpu);
}

void assess_arch(VerifyReport& report, const std::vector<Patch>& patches,
                 std::vector<ArchTargets> arch, const std::vector<unsigned>& strips, GpuReport gpu,
                 bool only_relevant) {
  for (std::size_t i = 0; i < report.patches.size() && i < patches.size(); ++i) {
    PatchReport& p = report.patches[i];
    p.arch = i < arch.size() && i < strips.size() && strips[i] == p.strip
                 ? std::move(arch[i])
                 : infer_arch_targets(patches[i], p.strip);
    p.relevant = arch_relevant(p.arch, gpu);
    if (only_relevant && p.relevant == false && p.status != Status::kError)
      p.status = Status::kSkipped;  // an error is never hidden
  }
  report.gpu = std::move(gpu);
}

}  // namespace sm120check
