// Error scheme: library code throws sm120check::Error for input it cannot process (a malformed
// patch, an unreadable target); the CLI catches it once, prints "sm120check: error: <what()>" on
// stderr and exits with code 3. Problems confined to one file of a patch are not thrown: they are
// recorded as status `error` with a reason in the verification result.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace sm120check {

/// An input error. `file` names the offending input ("-" for standard input, empty if none);
/// `line` is 1-based, 0 when no line applies. what() is "file:line: message", "file: message" or
/// "message" accordingly, one line with no trailing newline.
class Error : public std::runtime_error {
 public:
  Error(std::string file, std::size_t line, const std::string& message);
  explicit Error(const std::string& message) : Error({}, 0, message) {}

  const std::string& file() const noexcept { return file_; }
  std::size_t line() const noexcept { return line_; }
  /// The message without the "file:line: " prefix.
  const std::string& message() const noexcept { return message_; }
  /// Further problems of the same input found in the same pass (a catalog entry's other bad
  /// fields), each a line shaped like what(); the CLI prints them after what().
  const std::vector<std::string>& more() const noexcept { return more_; }
  void add_more(std::string what) { more_.push_back(std::move(what)); }

 private:
  std::string file_;
  std::size_t line_;
  std::string message_;
  std::vector<std::string> more_;
};

}  // namespace sm120check
