// STUB
#include "sm120check/tree.hpp"
namespace sm120check {
std::string git_blob_id(std::string_view) { return {}; }
bool looks_binary(std::string_view) { return false; }
}  // namespace sm120check
