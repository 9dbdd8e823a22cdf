// STUB
#include "sm120check/report.hpp"
namespace sm120check {
void render_verify_text(std::ostream&, const VerifyReport&, bool) {}
void render_show_text(std::ostream&, const std::vector<Patch>&, bool) {}
}  // namespace sm120check
