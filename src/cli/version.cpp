#include "version.hpp"

namespace sm120check::cli {

std::string version_line() {
  std::string line = std::string("sm120check ") + SM120CHECK_VERSION + " (commit ";
  if (*kBuildCommit == '\0') return line + "unknown: not built from a git checkout)";
  line += kBuildCommit;
  if (kBuildDirty) line += ", with uncommitted changes";
  return line + ')';
}

}  // namespace sm120check::cli
