// arc4random(3) for binaries that link libstdc++ statically (SM120CHECK_STATIC_DEPS).
//
// GCC 12's libstdc++.a implements std::random_device with glibc's arc4random, which glibc added
// in 2.36, and the archive member holding it (random.o) is linked whenever std::logic_error is
// (stdexcept.o -> cow-string-inst.o -> random.o): the binary then asks for GLIBC_2.36 and does
// not start on Ubuntu 22.04 (glibc 2.35: "version `GLIBC_2.36' not found"). Defined here, in
// the executable, the linker binds libstdc++'s reference to this definition and no GLIBC_2.36
// version is needed. It is what glibc's is: uniformly random 32 bits from the kernel's CSPRNG
// (getrandom(2), glibc 2.25), never failing. tests/packaging/check_static.sh checks that no
// symbol newer than glibc 2.35 is wanted.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t arc4random(void) noexcept {
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t got = ::getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno != EINTR) std::abort();  // ENOSYS: a kernel older than 3.17
  }
}
