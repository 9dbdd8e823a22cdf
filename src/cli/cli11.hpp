// CLI11 with -Wnull-dereference silenced: GCC 12 at -O2 reports a false positive in std::string
// code inlined from CLI::detail::split. Include this header instead of <CLI/CLI.hpp>.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop
