// How many threads a command's parallel parts may usefully run at once.
#pragma once

namespace sm120check {

/// The CPUs this process may run on: those in its affinity mask (sched_getaffinity(2)), which
/// a container's cpuset or `taskset` narrows, where std::thread::hardware_concurrency() counts
/// every CPU online in the host (glibc reads /sys/devices/system/cpu/online: three system calls
/// more). Falls back to hardware_concurrency() when the mask cannot be read; at least 1.
/// Computed once per process. A CPU quota (cgroup cpu.max) is not seen.
unsigned usable_cpus();

}  // namespace sm120check
