// STUB
#include "sm120check/report.hpp"
namespace sm120check {
nlohmann::json verify_to_json(const VerifyReport&) { return {}; }
nlohmann::json show_to_json(const std::vector<Patch>&) { return {}; }
}  // namespace sm120check
