// STUB
#include "sm120check/verify.hpp"
namespace sm120check {
unsigned detect_strip(const Patch&, const Tree&) { return 1; }
PatchReport verify_patch(const Patch& patch, const Tree&, const VerifyOptions&) {
  PatchReport r; r.source = patch.source; return r;
}
VerifyReport verify(const std::vector<Patch>& patches, const Tree& tree, const VerifyOptions& o) {
  VerifyReport r; r.target = tree.name();
  for (const Patch& p : patches) r.patches.push_back(verify_patch(p, tree, o));
  return r;
}
}  // namespace sm120check
