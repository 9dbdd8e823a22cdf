#include "libgit2.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include <string>

#include "sm120check/error.hpp"

namespace sm120check::git {
namespace {

/// Initialises the library whose functions `lib` holds, and sets the options every run wants.
void initialise(const Libgit2& lib) {
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
}

#if SM120CHECK_LIBGIT2_LINKED

// The self-contained build (SM120CHECK_STATIC) links libgit2.a: the table holds the linked
// functions, and SM120CHECK_LIBGIT2_LIBRARY is not read.
Libgit2 load() {
  Libgit2 lib;
#define SM120CHECK_LIBGIT2_TAKE(name) lib.name = &::name;
  SM120CHECK_LIBGIT2_FUNCTIONS(SM120CHECK_LIBGIT2_TAKE)
#undef SM120CHECK_LIBGIT2_TAKE
  initialise(lib);
  return lib;
}

#else

#ifndef SM120CHECK_LIBGIT2_SONAME
#error "SM120CHECK_LIBGIT2_SONAME must name libgit2's shared library (set by CMake)"
#endif

Libgit2 load() {
  // SM120CHECK_LIBGIT2_LIBRARY names another file (a libgit2 outside the loader's path; the
  // tests name a missing one). RTLD_LOCAL keeps libgit2's dependencies out of the global
  // namespace.
  const char* env = std::getenv("SM120CHECK_LIBGIT2_LIBRARY");
  const std::string name = env != nullptr && *env != '\0' ? env : SM120CHECK_LIBGIT2_SONAME;
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw Error("libgit2 (" + name + ") could not be loaded: " +
                (why != nullptr ? why : "unknown reason") + "; install the libgit2 package");
  }
  Libgit2 lib;
#define SM120CHECK_LIBGIT2_RESOLVE(name)                                  \
  lib.name = reinterpret_cast<decltype(&::name)>(::dlsym(handle, #name)); \
  if (lib.name == nullptr)                                                \
    throw Error("libgit2 (" SM120CHECK_LIBGIT2_SONAME ") lacks the function " #name);
  SM120CHECK_LIBGIT2_FUNCTIONS(SM120CHECK_LIBGIT2_RESOLVE)
#undef SM120CHECK_LIBGIT2_RESOLVE
  initialise(lib);
  return lib;  // the handle stays open for the life of the process
}

#endif

}  // namespace

const Libgit2& libgit2() {
  // Loaded once; a failure is kept and thrown again at each call. No exception may leave the
  // initialisation: std::call_once runs it inside glibc's pthread_once, and an exception
  // unwinding through that C frame aborts the process when libgcc is linked statically (the
  // static unwinder meets the shared libgcc's personality routine): a host without libgit2
  // got SIGABRT instead of the error.
  struct Loaded {
    Libgit2 lib;
    std::string error;
  };
  static const Loaded loaded = [] {
    Loaded out;
    try {
      out.lib = load();
    } catch (const Error& e) {
      out.error = e.what();
    }
    return out;
  }();
  if (!loaded.error.empty()) throw Error(loaded.error);
  return loaded.lib;
}

const char* last_error_message(const char* fallback) {
  const git_error* err = libgit2().git_error_last();
  return err != nullptr && err->message != nullptr ? err->message : fallback;
}

}  // namespace sm120check::git
