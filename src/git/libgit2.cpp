#include "libgit2.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "sm120check/error.hpp"

#ifndef SM120CHECK_LIBGIT2_SONAME
#error "SM120CHECK_LIBGIT2_SONAME must name libgit2's shared library (set by CMake)"
#endif

namespace sm120check::git {
namespace {

Libgit2 load() {
  // RTLD_LOCAL keeps libgit2's dependencies out of the global namespace.
  void* handle = ::dlopen(SM120CHECK_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw Error(std::string("libgit2 (" SM120CHECK_LIBGIT2_SONAME ") could not be loaded: ") +
                (why != nullptr ? why : "unknown reason") + "; install the libgit2 package");
  }
  Libgit2 lib;
#define SM120CHECK_LIBGIT2_RESOLVE(name)                                  \
  lib.name = reinterpret_cast<decltype(&::name)>(::dlsym(handle, #name)); \
  if (lib.name == nullptr)                                                \
    throw Error("libgit2 (" SM120CHECK_LIBGIT2_SONAME ") lacks the function " #name);
  SM120CHECK_LIBGIT2_FUNCTIONS(SM120CHECK_LIBGIT2_RESOLVE)
#undef SM120CHECK_LIBGIT2_RESOLVE
  if (lib.git_libgit2_init() < 0) throw Error("libgit2 could not be initialised");
  // Objects read from the object database are not hashed again to check their ids (git does
  // not either; `git fsck` does): for blobs that costs about as much as inflating them, and
  // `log` reads hundreds of them.
  lib.git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
  // A repository owned by another user is read (root checking a deploy user's checkout over
  // SSH is the usual case): git's safe.directory check guards against running the commands a
  // foreign repository's config names (core.fsmonitor, hooks, filter drivers), and sm120check
  // runs none of them; it only reads objects, refs and the index.
  lib.git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
  return lib;  // the handle stays open for the life of the process
}

}  // namespace

const Libgit2& libgit2() {
  static std::once_flag once;
  static Libgit2 lib;
  std::call_once(once, [] { lib = load(); });  // a throw leaves `once` unset: the next call retries
  return lib;
}

const char* last_error_message(const char* fallback) {
  const git_error* err = libgit2().git_error_last();
  return err != nullptr && err->message != nullptr ? err->message : fallback;
}

}  // namespace sm120check::git
