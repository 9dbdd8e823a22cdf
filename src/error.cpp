#include "sm120check/error.hpp"

#include <fmt/format.h>

namespace sm120check {
namespace {

std::string format_what(const std::string& file, std::size_t line, const std::string& message) {
  if (file.empty()) return message;
  if (line == 0) return fmt::format("{}: {}", file, message);
  return fmt::format("{}:{}: {}", file, line, message);
}

}  // namespace

Error::Error(std::string file, std::size_t line, const std::string& message)
    : std::runtime_error(format_what(file, line, message)),
      file_(std::move(file)),
      line_(line),
      message_(message) {}

}  // namespace sm120check
