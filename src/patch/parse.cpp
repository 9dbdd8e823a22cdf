// STUB: replaced by the parser implementation.
#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
namespace sm120check {
std::vector<Patch> parse_patches(std::string_view, std::string_view source) {
  throw Error(std::string(source), 0, "parser not implemented");
}
}  // namespace sm120check
