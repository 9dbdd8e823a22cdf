#include "sm120check/cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace sm120check {

unsigned usable_cpus() {
  static const unsigned count = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
      const int n = CPU_COUNT(&set);
      if (n > 0) return static_cast<unsigned>(n);
    }
    return std::max(std::thread::hardware_concurrency(), 1u);
  }();
  return count;
}

}  // namespace sm120check
